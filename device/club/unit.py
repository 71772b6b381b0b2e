"""What the table's systemd unit must open for ``[web]`` and ``[club]``: a drop-in for tarotmate.service.

``tarotmate.service`` denies all IP traffic (``IPAddressDeny=any``, no
``AF_INET``). With the page or the club enabled, the drop-in printed by
``tarotmate club dropin`` allows IPv4/IPv6 sockets and, in the allow-list,
only loopback, link-local, multicast (DNS-SD) and the private LAN ranges,
plus the club server's own address when ``[club] url`` names one elsewhere.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

LAN = ("localhost", "link-local", "multicast", "10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
DROPIN_PATH = "/etc/systemd/system/tarotmate.service.d/online.conf"


def _club_addresses(url: str) -> list[str]:
    host = urlsplit(url).hostname
    if not host:
        return []
    try:
        ips = {ipaddress.ip_address(host)}
    except ValueError:
        try:
            ips = {ipaddress.ip_address(info[4][0]) for info in socket.getaddrinfo(host, None)}
        except socket.gaierror:
            return []
    return sorted(str(ip) for ip in ips if not (ip.is_private or ip.is_loopback or ip.is_link_local))


def dropin_for(config) -> str | None:
    """The drop-in's text, or None when neither the page nor the club is enabled (nothing to open)."""
    web, club = config.web, config.club
    if not (web.enabled or club.enabled):
        return None
    allow = list(LAN)
    if club.enabled and club.url:
        allow += _club_addresses(club.url)
    why = []
    if web.enabled:
        why.append(f"the table's page on {web.host}:{web.port}")
    if club.enabled:
        why.append(f"the club server {club.url or '(found by DNS-SD)'}")
    return ("# Written by `tarotmate club dropin`: opens the LAN for " + " and ".join(why) + ".\n"
            f"# Install as {DROPIN_PATH}, then: systemctl daemon-reload && systemctl restart tarotmate\n"
            "[Service]\n"
            "RestrictAddressFamilies=AF_INET AF_INET6\n"
            "IPAddressAllow=" + " ".join(allow) + "\n")
