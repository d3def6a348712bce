"""A network lab of homes and routers in Linux network namespaces, for tests and benches only
(nothing here is used by a match).

Every namespace, veth pair, address and firewall rule of a lab exists only inside the lab: nothing
is added to the machine's own namespace, and nothing in the lab has a route out of it.  The lab's
"internet" is the block :data:`INTERNET_V4` / :data:`INTERNET_V6` (not in any reserved range: a real
miniupnpd refuses to map behind a reserved WAN address, as behind carrier-grade NAT), which exists
only inside the lab's namespaces.

The homes (:data:`HOMES`; each a namespace ``<lab>-<home>`` where the player's program runs; a lab may
have several homes of a kind, named with a number: ``"upnp-2"``):

* ``open``  -- a machine on the internet with public IPv4 and IPv6 addresses (no router);
* ``upnp``  -- behind a NAT router running the real ``miniupnpd`` (UPnP-IGD v1/v2, NAT-PMP, PCP);
* ``plain`` -- behind a NAT router with no port mapping service;
* ``cgnat`` -- behind a home router (running ``miniupnpd``) whose WAN side is in 100.64.0.0/10,
  behind the provider's second NAT: a mapping on the home router cannot make the host reachable;
* ``v6``    -- IPv6 with a global prefix behind a stateful firewall that drops unsolicited inbound,
  and IPv4 behind a plain NAT;
* ``v6pin`` -- the same, with ``miniupnpd`` offering IPv6 pinholes (UPnP WANIPv6FirewallControl) and
  IPv4 mappings.

``Lab(homes, services={"upnp-2": "igd1", "upnp-3": "natpmp"})`` makes the routers of those homes
describe themselves as UPnP-IGD v1, or offer NAT-PMP/PCP only.

Its API (a context manager; everything is removed on leaving it, also on an error)::

    from p2ptrumps.net import lab
    why = lab.unavailable()                  # None, or one line: why no lab can be made here
    with lab.Lab(homes=("upnp", "plain")) as net:
        net.ns("upnp")                       # namespace name of the upnp home's machine
        net.address("upnp")                  # its LAN IPv4 address ("192.168.1.2")
        net.service_address                  # "11.47.0.1": the internet namespace's own address
        proc = net.start("inet", ["python3", "-m", "http.server", "--bind", net.service_address, "8000"])
        net.run("upnp", ["ping", "-c1", net.service_address])
        net.mappings("upnp")                 # miniupnpd's port mapping rules on that home's router
    # every process started with start()/popen() and every namespace are gone here

``start``/``popen`` run a command in any lab namespace (``"inet"`` is the internet namespace, where a
shared service such as a rendezvous server belongs; reachable from every home at
:attr:`Lab.service_address` and ``[2a0b:bd40::1]``); the lab terminates them when it closes.

Names: every namespace is ``netlab<pid>x<4 hex>-<role>`` (``netlab`` is :data:`PREFIX`); :func:`sweep`
removes the namespaces of labs whose process is gone (a lab killed with ``kill -9`` cannot remove its own).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shutil
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from types import TracebackType

from .netns import LabError, Namespaces, end, kill_all_in

__all__ = ["HOMES", "INTERNET_V4", "INTERNET_V6", "MAPPING_HOMES", "MAX_LEASE_S", "MIN_LEASE_S", "PREFIX",
           "V6_PREFIX", "Lab", "LabError", "kind", "sweep", "unavailable", "until"]

#: The lab's internet: the internet namespace's bridge has ``.0.1``, the open host ``.0.10``, the
#: router of home number i ``11.47.i.1``.  Outside every reserved range; it exists only in the lab.
INTERNET_V4 = "11.47.0.0/16"
INTERNET_V6 = "2a0b:bd40::/64"
#: A home's IPv6 prefix: ``2a0b:bd40:<i>::/64``, routed by the internet namespace to its router.
V6_PREFIX = "2a0b:bd40:{i}::"
#: The first part of every namespace name (``P2PTRUMPS_LAB_PREFIX`` sets another, letters and digits only, so
#: that labs of several people on one machine are told apart).
PREFIX = os.environ.get("P2PTRUMPS_LAB_PREFIX", "") if re.fullmatch(
    r"[a-z][a-z0-9]{0,11}", os.environ.get("P2PTRUMPS_LAB_PREFIX", "")) else "netlab"

#: The homes a lab can have, in the order of :attr:`Lab.homes` (see the module docstring).
HOMES = ("open", "upnp", "plain", "cgnat", "v6", "v6pin")
#: Which homes' routers run miniupnpd.
MAPPING_HOMES = frozenset({"upnp", "cgnat", "v6pin"})
_V6_HOMES = frozenset({"open", "v6", "v6pin"})
#: Lease bounds miniupnpd grants (seconds): short, so that a killed host's mapping expires in the lab.
MIN_LEASE_S = 30
MAX_LEASE_S = 600


def kind(home: str) -> str:
    """The kind of a home (one of :data:`HOMES`): its name without a trailing ``-N`` (``"upnp-2"`` is a
    second home of the kind ``"upnp"``: a lab may have several of a kind)."""
    base, _, number = home.partition("-")
    return base if number.isdigit() else home


def unavailable(homes: Iterable[str] = HOMES) -> str | None:
    """None when a lab with ``homes`` can be made here, else one line saying why not (not root, a
    missing program, namespaces refused).  Makes and removes one probe namespace."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return "the network lab needs root (network namespaces)"
    need = ["ip", "nft"] + (["miniupnpd"] if MAPPING_HOMES & {kind(h) for h in homes} else [])
    missing = [p for p in need if _which(p) is None]
    if missing:
        return f"the network lab needs {', '.join(missing)} (apt-get install -y miniupnpd nftables)"
    probe = f"{PREFIX}{os.getpid()}x{secrets.token_hex(2)}-probe"
    try:
        r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True, timeout=10)
        if r.returncode != 0:
            return f"cannot make a network namespace: {r.stderr.strip()}"
        r = subprocess.run(["ip", "netns", "exec", probe, "nft", "list", "ruleset"],
                           capture_output=True, text=True, timeout=10)
        if r.returncode != 0:
            return f"nftables does not work in a network namespace: {r.stderr.strip()}"
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot make a network namespace: {exc}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=10, check=False)
    return None


def _which(program: str) -> str | None:
    return shutil.which(program) or shutil.which(program, path="/usr/sbin:/sbin:/usr/bin:/bin")


def sweep() -> list[str]:
    """Remove the namespaces of labs whose process has ended (``netlab<pid>x...`` with no such pid),
    killing whatever still runs in them.  Returns the names removed."""
    gone = []
    for name in _netns_names():
        m = re.fullmatch(rf"{PREFIX}(\d+)x[0-9a-f]{{4}}-[a-z0-9-]+", name)
        if m is None:
            continue
        pid = int(m.group(1))
        if pid != os.getpid():
            try:
                os.kill(pid, 0)
                continue
            except ProcessLookupError:
                pass
            except PermissionError:
                continue
        if pid == os.getpid():
            continue
        kill_all_in(name)
        subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=10, check=False)
        gone.append(name)
    return gone


def _netns_names() -> list[str]:
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=10, check=False)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def until(check: Callable[[], bool], timeout_s: float, poll_s: float = 0.2) -> bool:
    """Whether ``check()`` holds within ``timeout_s`` seconds, asked every ``poll_s`` seconds (a state
    of the lab's routers or peers that comes in its own time: a mapping back, a lease run out)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(poll_s)
    return False


class Lab(Namespaces):
    """The lab: an internet namespace (``"inet"``) and, for each of ``homes`` (see :data:`HOMES`), the
    namespace of its machine (named by the home, e.g. ``"upnp"``) and of its router(s)
    (``"upnp-r"``; ``"cgnat-isp"`` for the provider's NAT of the home ``"cgnat"``).
    Home number i (from 1, in the order given)
    has the LAN 192.168.i.0/24 (the machine at .2) and its router the public 11.47.i.1; an IPv6 home the
    prefix 2a0b:bd40:i::/64 (the machine at ::2); an open host 11.47.i.10 and 2a0b:bd40::i:10.
    Made on ``__enter__`` (or :meth:`open`), removed on ``__exit__`` (or :meth:`close`), also after an error.

    Raises:
        LabError: a command that builds the lab failed (what was built is removed first).
        ValueError: an unknown home.
    """

    def __init__(self, homes: Sequence[str] = HOMES, *, lease_s: int = MAX_LEASE_S,
                 services: dict[str, str] | None = None) -> None:
        bad = [h for h in homes if kind(h) not in HOMES]
        if bad:
            raise ValueError(f"unknown lab homes {bad} (known: {', '.join(HOMES)}, each maybe with a number)")
        self.homes = list(dict.fromkeys(homes))
        self.lease_s = lease_s
        #: What a home's miniupnpd offers: ``"igd2"`` (the default: UPnP-IGD v2 and NAT-PMP/PCP), ``"igd1"``
        #: (it describes itself as IGD v1) or ``"natpmp"`` (NAT-PMP/PCP only, no UPnP).
        self.services = dict(services or {})
        super().__init__(f"{PREFIX}{os.getpid()}x{secrets.token_hex(2)}")
        #: The internet namespace's own address: where a shared service listens.
        self.service_address = "11.47.0.1"
        self.service_address6 = "2a0b:bd40::1"
        self._addr: dict[str, tuple[str, str | None]] = {}
        self._wan: dict[str, str] = {}
        self._daemons: dict[str, subprocess.Popen[bytes]] = {}
        self._number: dict[str, int] = {}

    # -- addresses

    def address(self, home: str) -> str:
        """The IPv4 address of ``home``'s machine (a LAN address behind its router; public for ``open``)."""
        return self._addr[home][0]

    def address6(self, home: str) -> str | None:
        """The global IPv6 address of ``home``'s machine, or None (an IPv4-only home)."""
        return self._addr[home][1]

    def wan_address(self, home: str) -> str:
        """The public IPv4 address the home's traffic leaves from (its router's, the provider's for cgnat)."""
        return self._wan[home]

    # -- building

    def __enter__(self) -> Lab:
        self.open()
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    def open(self) -> None:
        try:
            self._build()
        except BaseException:
            self.close()
            raise

    def _build(self) -> None:
        self._add_ns("inet")
        self._ip("inet", "link", "add", "br0", "type", "bridge")
        self._ip("inet", "link", "set", "br0", "up")
        self._ip("inet", "addr", "add", "11.47.0.1/16", "dev", "br0")
        self._ip("inet", "-6", "addr", "add", "2a0b:bd40::1/64", "dev", "br0", "nodad")
        self.run("inet", ["sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"])
        for i, home in enumerate(self.homes, start=1):
            self._build_home(i, home)

    def _on_internet(self, role: str, dev: str, v4: str, v6: str | None, port: str) -> None:
        """Plug ``role``'s ``dev`` into the internet bridge (port ``port`` there) at ``v4`` (and ``v6``)."""
        self._link(role, dev, "inet", port)
        self._ip("inet", "link", "set", port, "master", "br0")
        self._ip(role, "addr", "add", f"{v4}/16", "dev", dev)
        self._ip(role, "route", "add", "default", "via", "11.47.0.1")
        if v6 is not None:
            self._ip(role, "-6", "addr", "add", f"{v6}/64", "dev", dev, "nodad")
            self._ip(role, "-6", "route", "add", "default", "via", "2a0b:bd40::1")

    def _build_home(self, i: int, home: str) -> None:
        if kind(home) == "open":
            self._add_ns(home)
            self._on_internet(home, "eth0", f"11.47.{i}.10", f"2a0b:bd40::{i}:10", f"p-{i}")
            self._addr[home] = (f"11.47.{i}.10", f"2a0b:bd40::{i}:10")
            self._wan[home] = f"11.47.{i}.10"
            return
        router, v6 = f"{home}-r", kind(home) in _V6_HOMES
        lan4 = f"192.168.{i}"
        prefix = V6_PREFIX.format(i=i)
        self._add_ns(router)
        self._add_ns(home)
        self.run(router, ["sysctl", "-qw", "net.ipv4.ip_forward=1", "net.ipv6.conf.all.forwarding=1"])
        if kind(home) == "cgnat":
            isp = f"{home}-isp"
            self._add_ns(isp)
            self.run(isp, ["sysctl", "-qw", "net.ipv4.ip_forward=1"])
            self._on_internet(isp, "wan", f"11.47.{i}.1", None, f"p-{i}")
            self._link(isp, "cust", router, "wan")
            self._ip(isp, "addr", "add", f"100.64.{i}.1/24", "dev", "cust")
            self._ip(router, "addr", "add", f"100.64.{i}.2/24", "dev", "wan")
            self._ip(router, "route", "add", "default", "via", f"100.64.{i}.1")
            self._nat(isp, "wan", v6=False, drop_inbound=True)
            self._wan[home] = f"11.47.{i}.1"
        else:
            self._on_internet(router, "wan", f"11.47.{i}.1", f"2a0b:bd40::{i}:1" if v6 else None, f"p-{i}")
            self._wan[home] = f"11.47.{i}.1"
        # The LAN is a bridge on the router (``lan``), so that a second machine can join it (:meth:`neighbour`).
        self._ip(router, "link", "add", "lan", "type", "bridge")
        self._ip(router, "link", "set", "lan", "up")
        self._link(router, "m2", home, "eth0")
        self._ip(router, "link", "set", "m2", "master", "lan")
        self._ip(router, "addr", "add", f"{lan4}.1/24", "dev", "lan")
        self._ip(home, "addr", "add", f"{lan4}.2/24", "dev", "eth0")
        self._ip(home, "route", "add", "default", "via", f"{lan4}.1")
        address6 = None
        if v6:
            self._ip(router, "-6", "addr", "add", f"{prefix}1/64", "dev", "lan", "nodad")
            self._ip(home, "-6", "addr", "add", f"{prefix}2/64", "dev", "eth0", "nodad")
            self._ip(home, "-6", "route", "add", "default", "via", f"{prefix}1")
            self._ip("inet", "-6", "route", "add", f"{prefix}/64", "via", f"2a0b:bd40::{i}:1")
            address6 = f"{prefix}2"
        self._addr[home] = (f"{lan4}.2", address6)
        self._number[home] = i
        self._nat(router, "wan", v6=v6, drop_inbound=True)
        if kind(home) in MAPPING_HOMES:
            self._start_miniupnpd(home, router, ipv6=v6)

    def neighbour(self, home: str) -> str:
        """Put a second machine on ``home``'s LAN (not for ``open``: it has none) and return its role name,
        ``"<home>-n"`` (its namespace is ``ns("<home>-n")``; LAN address ``192.168.i.3``, and
        ``<prefix>3`` in an IPv6 home).  Made once; a second call returns the same role.

        Raises:
            ValueError: ``home`` is not a home of this lab with a router.
            LabError: a command failed.
        """
        if home not in self._number:
            raise ValueError(f"{home!r} is not a home of this lab behind a router")
        role, i = f"{home}-n", self._number[home]
        if role in self._addr:
            return role
        self._add_ns(role)
        self._link(f"{home}-r", "m3", role, "eth0")
        self._ip(f"{home}-r", "link", "set", "m3", "master", "lan")
        self._ip(role, "addr", "add", f"192.168.{i}.3/24", "dev", "eth0")
        self._ip(role, "route", "add", "default", "via", f"192.168.{i}.1")
        address6 = None
        if self._addr[home][1] is not None:
            prefix = V6_PREFIX.format(i=i)
            self._ip(role, "-6", "addr", "add", f"{prefix}3/64", "dev", "eth0", "nodad")
            self._ip(role, "-6", "route", "add", "default", "via", f"{prefix}1")
            address6 = f"{prefix}3"
        self._addr[role] = (f"192.168.{i}.3", address6)
        self._wan[role] = self._wan[home]
        return role

    def _nat(self, role: str, wan: str, *, v6: bool, drop_inbound: bool) -> None:
        """The router's nftables: masquerade IPv4 out of ``wan``; forward what the inside starts and
        its answers; drop the rest (a stateful firewall, for IPv6 too), except what miniupnpd opens
        (its chains ``miniupnpd``, ``prerouting_miniupnpd``, ``postrouting_miniupnpd`` in this table)."""
        rules = f"""
table inet netlab {{
    chain miniupnpd {{
    }}
    chain prerouting_miniupnpd {{
    }}
    chain postrouting_miniupnpd {{
    }}
    chain forward {{
        type filter hook forward priority 0; policy drop;
        ct state established,related accept
        iifname != "{wan}" accept
        jump miniupnpd
    }}
    chain prerouting {{
        type nat hook prerouting priority -100; policy accept;
        jump prerouting_miniupnpd
    }}
    chain postrouting {{
        type nat hook postrouting priority 100; policy accept;
        jump postrouting_miniupnpd
        oifname "{wan}" meta nfproto ipv4 masquerade
    }}
}}
"""
        self.run(role, ["nft", "-f", "-"], input=rules)

    def _start_miniupnpd(self, home: str, router: str, *, ipv6: bool) -> None:
        conf = self.dir / f"{home}-miniupnpd.conf"
        conf.write_text("\n".join([
            "ext_ifname=wan",
            *(["ext_ifname6=wan"] if ipv6 else []),
            "listening_ip=lan",
            "http_port=0",
            "enable_natpmp=yes",
            f"enable_upnp={'no' if self.services.get(home) == 'natpmp' else 'yes'}",
            f"force_igd_desc_v1={'yes' if self.services.get(home) == 'igd1' else 'no'}",
            f"ipv6_disable={'no' if ipv6 else 'yes'}",
            "secure_mode=yes",
            "system_uptime=no",
            "notify_interval=60",
            "clean_ruleset_interval=600",
            f"min_lifetime={MIN_LEASE_S}",
            f"max_lifetime={self.lease_s}",
            f"uuid=00000000-0000-4000-8000-{secrets.token_hex(6)}",
            "upnp_table_name=netlab",
            "upnp_nat_table_name=netlab",
            "upnp_forward_chain=miniupnpd",
            "upnp_nat_chain=prerouting_miniupnpd",
            "upnp_nat_postrouting_chain=postrouting_miniupnpd",
            f"lease_file={self.dir / (home + '-upnp.leases')}",
            "allow 1024-65535 192.168.0.0/16 1024-65535",
            "deny 0-65535 0.0.0.0/0 0-65535",
            "",
        ]))
        log = open(self.dir / f"{home}-miniupnpd.log", "wb")  # noqa: SIM115 (closed with the lab)
        argv = ["miniupnpd", "-d", "-f", str(conf), "-P", str(self.dir / f"{home}-miniupnpd.pid")]
        if not ipv6:
            argv.insert(1, "-4")
        proc = self.popen(router, argv, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        self._daemons[home] = proc
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:  # ready when it listens for SOAP (HTTP, TCP) on the LAN side
            if proc.poll() is not None:
                raise LabError(f"miniupnpd of the {home} home ended at once: {self.miniupnpd_log(home)[-800:]}")
            said = self.miniupnpd_log(home)
            if "HTTP listening on port" in said or ("Listening for NAT-PMP" in said
                                                    and self.services.get(home) == "natpmp"):
                return
            time.sleep(0.05)
        raise LabError(f"miniupnpd of the {home} home did not start in 10 s: {self.miniupnpd_log(home)[-800:]}")

    # -- reading the routers

    def miniupnpd_log(self, home: str) -> str:
        """What ``home``'s miniupnpd has logged so far ('' for a home without one)."""
        with contextlib.suppress(OSError):
            return (self.dir / f"{home}-miniupnpd.log").read_text(errors="replace")
        return ""

    def mappings(self, home: str) -> list[str]:
        """The port mapping (DNAT) rules and IPv6 pinholes miniupnpd holds on ``home``'s router now, one
        nftables rule a line ([] for none, or for a home without miniupnpd)."""
        if kind(home) not in MAPPING_HOMES or home not in self.homes:
            return []
        out: list[str] = []
        for chain in ("prerouting_miniupnpd", "miniupnpd"):
            r = self.run(f"{home}-r", ["nft", "list", "chain", "inet", "netlab", chain], check=False)
            out += [line.strip() for line in r.stdout.splitlines()
                    if ("dnat" in line or "accept" in line) and "dport" in line]
        return out

    def stop_miniupnpd(self, home: str, *, forget: bool = False) -> None:
        """Stop ``home``'s miniupnpd (a router whose mapping service went away: nothing answers);
        ``forget``: its mappings and pinholes go too (the rules and the lease file: a router that rebooted)."""
        proc = self._daemons.pop(home, None)
        if proc is not None:
            end(proc)
        if forget:
            for chain in ("prerouting_miniupnpd", "miniupnpd", "postrouting_miniupnpd"):
                self.run(f"{home}-r", ["nft", "flush", "chain", "inet", "netlab", chain])
            (self.dir / f"{home}-upnp.leases").unlink(missing_ok=True)

    def start_miniupnpd(self, home: str) -> None:
        """Start ``home``'s miniupnpd again after :meth:`stop_miniupnpd` (its UPnP service on a new HTTP
        port, as a restarted router's may be); returns once it listens."""
        if home not in self._daemons:
            self._start_miniupnpd(home, f"{home}-r", ipv6=kind(home) in _V6_HOMES)

    def reboot_router(self, home: str) -> None:
        """``home``'s router restarts: miniupnpd stops, every mapping and pinhole is forgotten, and it starts
        again (:meth:`stop_miniupnpd` with ``forget``, then :meth:`start_miniupnpd`)."""
        self.stop_miniupnpd(home, forget=True)
        self.start_miniupnpd(home)
