"""French tarot rules engine (FFT rules, 3, 4 and 5 players, named variants).

Pure Python: no camera, screen or hardware here. See ``docs/french-tarot.md``.
"""

from engine.tarot.dealing import (DealingError, DealtCards, allowed_chien_positions,
                                  check_chien_positions, chien_position_allowed, chien_size, cut,
                                  cut_range, deal_pack, draw_key, first_bidder, first_dealer,
                                  hand_size, is_valid_cut, next_dealer, packet_size,
                                  packets_per_player)
from engine.tarot.evidence import Violation
from engine.tarot.legality import forbidden_if_held, is_legal, legal_cards
from engine.tarot.operations import (AnnounceChelem, Bid, CallCard, DeclareMisere,
                                     DeclarePoignee, Ecart, Operation, OperationError, PetitSec,
                                     Play, RevealChien, operation_from_dict)
from engine.tarot.options import FFT, OptionError, TarotOptions
from engine.tarot.scoring import DealResult, score_deal
from engine.tarot.state import IllegalOperation, LiveTarget, Poignee, TarotDeal, Trick
from engine.tarot.game import DealSummary, TarotGame
from engine.tarot.record import (RecordError, deal_from_record, deal_to_record, load_record,
                                 replay_record, validate_record)
from engine.tarot.simulate import InjectedFault, random_deal, random_deal_with_revoke

__all__ = [
    "TarotDeal", "TarotOptions", "FFT", "OptionError", "IllegalOperation", "Trick", "LiveTarget",
    "Poignee", "Violation", "DealResult", "score_deal", "legal_cards", "is_legal",
    "forbidden_if_held", "Operation", "OperationError", "operation_from_dict", "PetitSec", "Bid",
    "CallCard", "RevealChien", "Ecart", "AnnounceChelem", "DeclarePoignee", "DeclareMisere",
    "Play", "random_deal", "random_deal_with_revoke", "InjectedFault", "TarotGame",
    "DealSummary", "RecordError", "validate_record", "replay_record", "deal_from_record",
    "deal_to_record", "load_record",
    # the deal itself (engine.tarot.dealing)
    "DealingError", "DealtCards", "packet_size", "hand_size", "chien_size", "packets_per_player",
    "first_bidder", "next_dealer", "draw_key", "first_dealer", "cut_range", "is_valid_cut", "cut",
    "chien_position_allowed", "allowed_chien_positions", "check_chien_positions", "deal_pack",
]
