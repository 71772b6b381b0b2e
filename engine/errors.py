"""Errors whose message is meant for the person at the table (or at the shell)."""


class TarotmateError(Exception):
    """Base class of every error Tarotmate reports to a user.

    The command line prints the message of such an error without a traceback
    and exits with a non-zero status.
    """


class UnknownCardError(TarotmateError, ValueError):
    """A card code that is not one of the 78 codes of the project."""
