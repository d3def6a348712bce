"""Asking the home router to forward the host's port, and naming the path a match uses.

The router is asked with UPnP-IGD (v1 and v2: ``WANIPConnection``/``WANPPPConnection``
``AddPortMapping``; an IPv6 pinhole with ``WANIPv6FirewallControl`` ``AddPinhole``) through the
``async-upnp-client`` library, else with NAT-PMP (RFC 6886, which PCP servers such as miniupnpd also
answer), spoken by :mod:`.natpmp`.  The library runs its own asyncio loop and NAT-PMP blocks, so
every call runs in a worker thread (:func:`trio.to_thread.run_sync`, abandoned on cancel) and every
step has a deadline: a router that does not answer costs at most :data:`START_BUDGET_S` seconds of
start-up (one that answered may take :data:`ANSWERED_S` more to map).

Chosen with figures (the lab of ``p2ptrumps/net/lab.py``, miniupnpd 2.3.1; see ``bench/netlab.py``):
``async-upnp-client`` (kept: releases through 2026; IGD v1/v2 and the IPv6 pinhole service) over
``miniupnpc`` 2.3.3 (the C library's binding: no pinhole call in Python, and its blocking discovery
took 1.09 s in the UPnP home and 4.1 s where no router answers, which cannot be cut short); PyPI's
NAT-PMP clients are unmaintained and one needs a C compiler (:mod:`.natpmp` says which), and PyPI has
no PCP client.

What the host learns is a :class:`Reach`: its case (:data:`CASES`), the mapping or pinhole made, and
one line to print.  A mapped external address in a reserved range (private, shared 100.64.0.0/10,
documentation ...) or none at all means double or carrier-grade NAT: it is not given out, the host
says so instead.  :func:`port_mapping` keeps the mapping for as long as the host runs (renewing the
lease at half its time) and removes it when the host stops, however it stops.

Set ``P2PTRUMPS_NO_MAP=1`` (or ``--no-map``) to ask no router; nothing is asked for a loopback bind.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import ipaddress
import os
import socket
import urllib.parse
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import trio

from ..command import typed
from ..message import N_, joined
from . import natpmp

#: Seconds the host's start-up may spend asking the router (discovery, mapping, pinhole).
START_BUDGET_S = 2.0
#: Seconds to wait for a router's answer to a discovery (SSDP, NAT-PMP) before giving up on it.
DISCOVER_S = 1.2
#: Seconds a router that answered may take for the mapping and pinhole (then the host goes on without).
ANSWERED_S = 5.0
#: Seconds for one UPnP request (description, SOAP action) or the removal at the end.
REQUEST_S = 1.5
#: The lease asked for, seconds (renewed at half of what the router grants).
LEASE_S = 3600
#: Shortest pause between renewals, seconds (a router granting a tiny lease is not hammered).
MIN_RENEW_S = 5.0
#: Seconds between asking the router again while hosting (at most): a router that restarted and forgot
#: the mapping has it back within this time.
CHECK_S = 30.0
DESCRIPTION = "p2ptrumps"
#: UPnP-IGD's error ``OnlyPermanentLeasesSupported``: the router takes a mapping only with lease 0
#: (MikroTik, some Zyxel); it is asked again so, and the mapping is removed when the host stops.
ONLY_PERMANENT_LEASES = 725
#: Environment variable that turns port mapping off (as ``--no-map``).
NO_MAP_ENV = "P2PTRUMPS_NO_MAP"

#: What the host found, one word each.
CASES = (
    "off",  # --no-map, P2PTRUMPS_NO_MAP, or a loopback/specific-address bind that is not for the internet
    "public",  # this machine has a public IPv4 address of its own: nothing to map
    "mapped",  # the router forwards a public IPv4 address and port to us
    "double-nat",  # the router's own external address is reserved (or none): behind another NAT
    "refused",  # a mapping service answered but refused the mapping
    "no-service",  # behind a NAT and nothing answered UPnP-IGD or NAT-PMP
)

_IGD_TYPES = ("urn:schemas-upnp-org:device:InternetGatewayDevice:2",
              "urn:schemas-upnp-org:device:InternetGatewayDevice:1")
_WAN_SERVICES = ("urn:schemas-upnp-org:service:WANIPConnection:2", "urn:schemas-upnp-org:service:WANIPConnection:1",
                 "urn:schemas-upnp-org:service:WANPPPConnection:1")
_PINHOLE_SERVICE = "urn:schemas-upnp-org:service:WANIPv6FirewallControl:1"


def is_public(address: str) -> bool:
    """True if ``address`` (IPv4 or IPv6 text) is a global unicast address a guest on the internet could
    reach; False for reserved ranges (private, 100.64.0.0/10, documentation, loopback ...) and for
    anything that is not an address ('' included)."""
    try:
        ip = ipaddress.ip_address(address.split("%")[0])
    except ValueError:
        return False
    return ip.is_global and not ip.is_multicast


@dataclass
class Mapped:
    """A port mapping the router made: ``external``:``port`` on the internet forwards to ``internal``:
    ``internal_port`` for ``lease_s`` seconds, made with ``method`` (``"UPnP-IGD v2"``, ``"UPnP-IGD v1"``
    or ``"NAT-PMP"``)."""

    method: str
    external: str
    port: int
    internal: str
    internal_port: int
    lease_s: int


@dataclass
class Pinhole:
    """An IPv6 pinhole in the router's firewall: inbound TCP to ``address``:``port`` allowed for ``lease_s``
    seconds (UPnP ``WANIPv6FirewallControl``, pinhole id ``uid``)."""

    address: str
    port: int
    lease_s: int
    uid: int


@dataclass
class Reach:
    """What the host learned of its router: ``case`` (one of :data:`CASES`), the mapping and pinhole made
    (or None), ``note``: one line for the host to print (None: nothing to say), ``service``: the router's
    mapping service as named to the user ('' when none answered)."""

    case: str = "off"
    mapped: Mapped | None = None
    pinhole: Pinhole | None = None
    note: str | None = None
    service: str = ""
    #: Why no pinhole was opened where the router has the service (None: nothing to say).
    pinhole_note: str | None = None
    _backend: _Backend | None = field(default=None, repr=False)
    pinhole_backend: _Upnp | None = field(default=None, repr=False)
    port: int = 0
    asked_port: int | None = None

    #: This machine's public IPv6 address when the router offered no pinhole (its firewall may drop guests).
    unopened_v6: str | None = None

    def public_addresses(self) -> list[str]:
        """The mapped public ``HOST:PORT`` to give out ([] when none)."""
        return [f"{self.mapped.external}:{self.mapped.port}"] if self.mapped is not None else []

    def lines(self) -> list[str]:
        """What the host prints about its router, one line each: the mapping made, or why a guest on the
        internet cannot reach it and what to do next; the IPv6 pinhole, or the firewall to open."""
        out: list[str] = [N_("port mapping: %(note)s", note=self.note)] if self.note else []
        if self.pinhole is not None:
            out.append(N_("IPv6: your router's firewall lets guests reach [%(address)s]:%(port)d (a pinhole, renewed "
                          "while hosting, removed when you stop)", address=self.pinhole.address,
                          port=self.pinhole.port))
        elif self.pinhole_note is not None:
            out.append(N_("IPv6: %(note)s", note=self.pinhole_note))
        elif self.unopened_v6 is not None and self.case not in ("off", "public"):
            out.append(N_("IPv6: your router offered no pinhole; if its firewall drops inbound connections (most do), "
                          "allow TCP to [%(address)s] port %(port)d there", address=self.unopened_v6, port=self.port))
        return out


    def code_lines(self) -> list[str]:
        """What a host meeting by code with a relay prints about its router: as :meth:`lines` when a
        guest elsewhere can connect directly (a mapping, a pinhole, a public address), else one short line
        -- there is nothing to forward by hand: the relay carries such a guest."""
        if self.mapped is not None or self.pinhole is not None or self.case in ("off", "public"):
            return self.lines()
        why = {"double-nat": N_("your router is behind another NAT"),
               "refused": N_("your router refused to forward the port"),
               }.get(self.case, N_("your router offers no port mapping"))
        return [N_("port mapping: none (%(why)s): a guest from another home will come through the relay", why=why)]


#: What the router keeps open for IPv6 when no IPv4 address is mapped.
PINHOLE = N_("the pinhole")


def mapping_wanted(bind: str | None, enabled: bool) -> bool:
    """Whether the host should ask its router at all: ``enabled`` (``--no-map`` not given), the
    :data:`NO_MAP_ENV` variable not set, and a bind that is not loopback (None: every address)."""
    if not enabled or os.environ.get(NO_MAP_ENV, "").strip() not in ("", "0"):
        return False
    if bind is None:
        return True
    literal = bind[1:-1] if bind.startswith("[") and bind.endswith("]") else bind
    if literal == "localhost":
        return False
    try:
        ip = ipaddress.ip_address(literal.split("%")[0])
    except ValueError:
        return True
    return not ip.is_loopback


# -- the two services, each in a worker thread


class _Backend:
    method = ""

    def add(self, port: int, internal: str, lease_s: int, external: int | None = None) -> tuple[int, int]:
        """Map TCP ``external`` (default: ``port``) to ``internal``:``port``; returns (external port granted,
        lease granted: 0 is a permanent mapping)."""
        raise NotImplementedError

    def remove(self, external: int, internal_port: int) -> None:
        """Remove the mapping made: UPnP names it by its ``external`` port, NAT-PMP by ``internal_port``."""
        raise NotImplementedError


class _Upnp(_Backend):
    """One UPnP-IGD router, found at ``location`` (its description URL)."""

    def __init__(self, location: str) -> None:
        self.location = location
        self.device: Any = None
        self.wan: Any = None
        self.firewall: Any = None
        self.method = "UPnP-IGD"

    async def _load(self) -> None:
        from async_upnp_client.aiohttp import AiohttpRequester
        from async_upnp_client.client_factory import UpnpFactory

        if self.device is None:
            factory = UpnpFactory(AiohttpRequester(timeout=int(REQUEST_S + 0.5)), non_strict=True)
            self.device = await asyncio.wait_for(factory.async_create_device(self.location), REQUEST_S)
            services = {s.service_type: s for s in self.device.all_services}
            self.wan = next((services[t] for t in _WAN_SERVICES if t in services), None)
            self.firewall = services.get(_PINHOLE_SERVICE)
            v2 = str(self.device.device_type).endswith(":2")
            self.method = "UPnP-IGD v2" if v2 else "UPnP-IGD v1"

    async def _call(self, service: Any, action: str, **args: Any) -> Any:
        if service is None:
            raise _Refused(f"the router has no service for {action}")
        return await asyncio.wait_for(service.action(action).async_call(**args), REQUEST_S)

    def external_address(self) -> str:
        async def run() -> str:
            await self._load()
            got = await self._call(self.wan, "GetExternalIPAddress")
            return str(got.get("NewExternalIPAddress") or "")
        return asyncio.run(run())

    def add(self, port: int, internal: str, lease_s: int, external: int | None = None) -> tuple[int, int]:
        outside = port if external is None else external

        async def run() -> tuple[int, int]:
            await self._load()
            for lease in dict.fromkeys((lease_s, 0)):  # a router that takes only permanent leases: 0, once
                try:
                    await self._call(self.wan, "AddPortMapping", NewRemoteHost="", NewExternalPort=outside,
                                     NewProtocol="TCP", NewInternalPort=port, NewInternalClient=internal,
                                     NewEnabled=True, NewPortMappingDescription=DESCRIPTION, NewLeaseDuration=lease)
                    return outside, lease
                except Exception as exc:
                    if lease == 0 or _upnp_error_code(exc) != ONLY_PERMANENT_LEASES:
                        raise
            raise _Refused("no lease was granted")
        return asyncio.run(run())

    def remove(self, external: int, internal_port: int) -> None:
        async def run() -> None:
            await self._load()
            await self._call(self.wan, "DeletePortMapping", NewRemoteHost="", NewExternalPort=external,
                             NewProtocol="TCP")
        asyncio.run(run())

    def has_pinholes(self) -> bool:
        async def run() -> bool:
            await self._load()
            return self.firewall is not None
        return asyncio.run(run())

    def add_pinhole(self, address: str, port: int, lease_s: int) -> int:
        async def run() -> int:
            await self._load()
            got = await self._call(self.firewall, "AddPinhole", RemoteHost="", RemotePort=0, InternalClient=address,
                                   InternalPort=port, Protocol=6, LeaseTime=lease_s)
            return int(got["UniqueID"])
        return asyncio.run(run())

    def renew_pinhole(self, uid: int, lease_s: int) -> None:
        asyncio.run(self._call(self.firewall, "UpdatePinhole", UniqueID=uid, NewLeaseTime=lease_s))

    def remove_pinhole(self, uid: int) -> None:
        asyncio.run(self._call(self.firewall, "DeletePinhole", UniqueID=uid))


class _NatPmp(_Backend):
    """A NAT-PMP gateway (RFC 6886) at ``gateway`` (its NAT-PMP port ``pmp_port``: 5351)."""

    method = "NAT-PMP"

    def __init__(self, gateway: str, pmp_port: int = natpmp.PORT) -> None:
        self.gateway = gateway
        self.pmp_port = pmp_port

    def add(self, port: int, internal: str, lease_s: int, external: int | None = None) -> tuple[int, int]:
        got = natpmp.map_tcp(self.gateway, port, port if external is None else external, lease_s, port=self.pmp_port)
        return got.external_port, got.lifetime_s

    def remove(self, external: int, internal_port: int) -> None:
        natpmp.unmap_tcp(self.gateway, internal_port, port=self.pmp_port)


def _upnp_error_code(exc: BaseException) -> int | None:
    """The UPnP error code of a refused action (``async-upnp-client``'s ``UpnpActionResponseError``), or
    None for any other failure."""
    code = getattr(exc, "error_code", None)
    return code if isinstance(code, int) else None


class _Refused(Exception):
    """The router answered but would not do it (the message says what it said)."""


def _find_igd(timeout_s: float, v6: str | None = None) -> str | None:
    """The description URL of the first UPnP Internet Gateway Device (v2 or v1) that answers an SSDP
    search within ``timeout_s`` seconds, or None.  ``v6``: search from that IPv6 address of ours (to
    ff02::c on its interface): the router then answers with its IPv6 URL, over which it lets us open a
    pinhole for that address (UPnP IGD v2 security: only the client itself may)."""
    from async_upnp_client.search import SsdpSearchListener

    where: dict[str, Any] = {}
    if v6 is not None:
        index = _interface_index(v6)
        if index is None:
            return None
        where = {"source": (v6, 0, 0, index), "target": ("ff02::c", 1900, 0, index)}

    async def run() -> str | None:
        loop = asyncio.get_running_loop()
        found: asyncio.Future[str] = loop.create_future()

        async def on_response(headers: Any) -> None:
            location = headers.get("location")
            if location and not found.done():
                found.set_result(str(location))

        listeners = []
        try:
            for st in _IGD_TYPES:
                listener = SsdpSearchListener(async_callback=on_response, loop=loop, timeout=1, search_target=st,
                                              **where)
                await listener.async_start()
                listeners.append(listener)
                listener.async_search()
            return await asyncio.wait_for(found, timeout_s)
        except (TimeoutError, OSError):
            return None
        finally:
            for listener in listeners:
                listener.async_stop()

    return asyncio.run(run())


def _interface_index(address: str) -> int | None:
    """The index of the network interface that has ``address`` (the ``ifaddr`` library), or None."""
    import ifaddr

    with contextlib.suppress(OSError, ValueError):
        for adapter in ifaddr.get_adapters():
            for ip in adapter.ips:
                if isinstance(ip.ip, tuple) and ip.ip[0] == address:
                    return int(adapter.index) if adapter.index is not None else None
    return None


def _find_natpmp(timeout_s: float) -> tuple[str, str] | None:
    """(gateway, its public IPv4 address) from a NAT-PMP gateway at the default route, or None when
    none answers (two tries, 0.25 s and 0.5 s: :mod:`.natpmp`)."""
    gateway = natpmp.default_gateway()
    if gateway is None:
        return None
    try:
        return gateway, natpmp.public_address(gateway)
    except natpmp.NatPmpError:  # no answer, an error answer: no NAT-PMP here
        return None


def _local_address_towards(host: str) -> str:
    """This machine's address on the route to ``host`` (a UDP ``connect`` sends nothing)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as s:
        s.connect((host, 9))
        return str(s.getsockname()[0])


def _load_libraries() -> None:
    """Import the client libraries (aiohttp and all: a few tenths of a second, more on a loaded machine)
    before the clock of the router's answers starts."""
    for name in ("async_upnp_client.aiohttp", "async_upnp_client.client_factory", "async_upnp_client.search",
                 "netifaces"):
        importlib.import_module(name)


async def _in_thread(fn: Callable[..., Any], *args: Any) -> Any:
    return await trio.to_thread.run_sync(fn, *args, abandon_on_cancel=True)


# -- what the host does


async def ask_router(port: int, local: list[str], *, budget_s: float = START_BUDGET_S) -> Reach:
    """Ask the router in front of this machine to forward TCP ``port`` (the same port outside).  Finding
    the router takes at most ``budget_s`` seconds (after the client libraries are imported, itself bounded
    by ``budget_s``); a router that answered has :data:`ANSWERED_S` seconds more to map.
    ``local``: this machine's addresses (text; the global IPv6 ones get a pinhole
    where the router offers one).  Never raises: whatever goes wrong is a case and a note."""
    reach = Reach(case="no-service", port=port)
    v4 = [a for a in local if ":" not in a and not ipaddress.ip_address(a).is_loopback]
    v6 = [a for a in local if ":" in a and is_public(a)]
    if any(is_public(a) for a in v4):
        reach.case = "public"
    with trio.move_on_after(budget_s):
        await _in_thread(_load_libraries)
    found: dict[str, Any] = {}
    with trio.move_on_after(budget_s):

        async def igd() -> None:
            found["igd"] = await _in_thread(_find_igd, DISCOVER_S)

        async def pmp() -> None:
            found["pmp"] = await _in_thread(_find_natpmp, DISCOVER_S)

        async def igd6() -> None:
            found["igd6"] = await _in_thread(_find_igd, DISCOVER_S, v6[0])

        async with trio.open_nursery() as n:
            n.start_soon(igd)
            if reach.case != "public":
                n.start_soon(pmp)
            if v6:
                n.start_soon(igd6)
    if reach.case == "public" and not found.get("igd6"):
        return reach
    with trio.move_on_after(ANSWERED_S):  # a router answered: it may take its time to map (a loaded machine)
        backend: _Backend | None = None
        if found.get("igd"):
            up = _Upnp(found["igd"])
            backend = reach._backend = up
            try:
                external = await _in_thread(up.external_address)
            except Exception as exc:
                external = ""
                reach.note = N_("your router's UPnP would not tell its address (%(why)s)", why=_why(exc))
            reach.service = up.method
            if reach.case != "public":
                await _map(reach, up, external, port)
        elif found.get("pmp"):
            gateway, external = found["pmp"]
            backend = reach._backend = _NatPmp(gateway)
            reach.service = "NAT-PMP"
            await _map(reach, backend, external, port)
        if found.get("igd6"):
            await _open_pinhole(reach, _Upnp(found["igd6"]), v6[0], port)
    if v6 and reach.pinhole is None:
        reach.unopened_v6 = v6[0]
    if reach.case == "no-service" and reach.note is None:
        reach.note = N_("your router answered no port mapping request (UPnP-IGD, NAT-PMP): a guest on the internet "
                        "cannot reach this machine over IPv4 unless you forward TCP port %(port)d to %(address)s on "
                        "your router (or turn UPnP on there)", port=port, address=v4[0] if v4 else N_("this machine"))
    return reach


async def _map(reach: Reach, backend: _Backend, external: str, port: int) -> None:
    """Map ``port`` through ``backend`` whose external address is ``external``; set the case and note."""
    if not is_public(external):
        reach.case = "double-nat"
        reach.note = (N_("your router is behind another NAT (its address %(address)s is a reserved one): a guest on "
                         "the internet cannot reach this address (double or carrier-grade NAT); a guest on your local "
                         "network can", address=external) if external else
                      N_("your router is behind another NAT: a guest on the internet cannot reach this address (double "
                         "or carrier-grade NAT); a guest on your local network can"))
        return
    reach.asked_port = port  # removed at the end if its answer never came (the time ran out)
    try:
        internal = _local_address_towards(getattr(backend, "gateway", "") or
                                          urllib.parse.urlsplit(getattr(backend, "location", "")).hostname or "")
        got_port, lease = await _in_thread(backend.add, port, internal, LEASE_S)
    except Exception as exc:  # refused: nothing of ours to remove (the port may be another machine's mapping)
        reach.asked_port = None
        reach.case = "refused"
        reach.note = N_("your router refused to forward port %(port)d (%(method)s: %(why)s); another machine here may "
                        "hold it: try another %(option)s", port=port, method=backend.method, why=_why(exc),
                        option="--port")
        return
    reach.case = "mapped"
    reach.mapped = Mapped(backend.method, external, got_port, internal, port, lease)
    how = (N_("a permanent mapping, the only kind your router makes: removed when you stop") if lease == 0 else
           N_("renewed while hosting, removed when you stop"))
    reach.note = N_("your router (%(method)s) forwards %(address)s:%(port)d to this machine (%(how)s)",
                    method=backend.method, address=external, port=got_port, how=how)


async def _open_pinhole(reach: Reach, up: _Upnp, address: str, port: int) -> None:
    try:
        if await _in_thread(up.has_pinholes):
            uid = await _in_thread(up.add_pinhole, address, port, LEASE_S)
            reach.pinhole = Pinhole(address, port, LEASE_S, uid)
            reach.pinhole_backend = up
    except Exception as exc:
        reach.pinhole_note = N_("your router would not open its IPv6 firewall for port %(port)d (%(why)s)", port=port,
                                why=_why(exc))


def _why(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:120]


async def _keep(reach: Reach, note: Callable[[str], None] | None = None, *, check_s: float | None = None) -> None:
    """For as long as the host runs: ask the router again every ``check_s`` seconds (default
    :data:`CHECK_S`; at half the lease when that is sooner) for the mapping and the pinhole -- a renewal,
    and the repair of a router that restarted and forgot them (found again by discovery when its old
    address does not answer).  ``note`` is told, one line each, when the router stops answering and when
    the mapping is back (or its public address changed)."""
    if reach.mapped is None and reach.pinhole is None:
        return
    lost = False
    for _ in range(10_000_000):  # bounded: one check per pause
        # A permanent mapping (lease 0) never runs out: it is only checked.
        lease = min((x.lease_s for x in (reach.mapped, reach.pinhole) if x is not None and x.lease_s > 0),
                    default=2 * CHECK_S)
        await trio.sleep(max(MIN_RENEW_S, min(CHECK_S if check_s is None else check_s, lease / 2)))
        was = reach.public_addresses()
        held = False  # a router that does not answer within the time has not held it
        with trio.move_on_after(START_BUDGET_S + ANSWERED_S):
            held = await _refresh(reach)
        if not held and not lost and note is not None:
            note(N_("port mapping: your router stopped answering for %(what)s: a guest elsewhere cannot connect until "
                    "it answers again (asked every %(seconds)s s)", what=", ".join(was) or PINHOLE,
                    seconds=f"{CHECK_S:g}"))
        elif held and (lost or reach.public_addresses() != was) and note is not None:
            now = reach.public_addresses()
            note(N_("port mapping: your router forwards %(what)s to this machine again (a new address: tell your "
                    "opponent %(address)s)", what=", ".join(now), address=now[0]) if now != was and now else
                 N_("port mapping: your router forwards %(what)s to this machine again",
                    what=", ".join(now) or PINHOLE))
        lost = not held


async def _refresh(reach: Reach) -> bool:
    """Ask again for the mapping and the pinhole of ``reach``; a router whose old address does not answer
    (it restarted: UPnP may listen elsewhere now) is found again by discovery.  True when both hold."""
    ok = True
    m = reach.mapped
    if m is not None and reach._backend is not None:
        lease = 0 if m.lease_s == 0 else LEASE_S  # a router that takes only permanent ones is asked so
        try:
            m.port, m.lease_s = await _in_thread(reach._backend.add, m.internal_port, m.internal, lease, m.port)
        except Exception:
            ok = False
            if isinstance(reach._backend, _Upnp):
                location = await _in_thread(_find_igd, DISCOVER_S)
                if location is not None:
                    up = _Upnp(location)
                    with contextlib.suppress(Exception):
                        external = await _in_thread(up.external_address)
                        m.port, m.lease_s = await _in_thread(up.add, m.internal_port, m.internal, lease, m.port)
                        reach._backend, m.external, ok = up, external or m.external, True
    if reach.pinhole is not None and reach.pinhole_backend is not None:
        p = reach.pinhole
        try:
            await _in_thread(reach.pinhole_backend.renew_pinhole, p.uid, LEASE_S)
        except Exception:  # gone with a restart: open it again, at the router's address of now
            location = await _in_thread(_find_igd, DISCOVER_S, p.address)
            try:
                up = _Upnp(location) if location is not None else reach.pinhole_backend
                p.uid = await _in_thread(up.add_pinhole, p.address, p.port, LEASE_S)
                reach.pinhole_backend = up
            except Exception:
                ok = False
    return ok


async def release(reach: Reach) -> None:
    """Remove the mapping and pinhole of ``reach`` (at most :data:`START_BUDGET_S` seconds, shielded from
    cancellation: also when the host is stopped by a signal).  Never raises."""
    backend = reach._backend
    with trio.CancelScope(shield=True), trio.move_on_after(START_BUDGET_S):
        # The mapping made (UPnP names it by its external port, NAT-PMP by ours), or the one asked for whose
        # answer never came.
        m = reach.mapped
        gone = (m.port, m.internal_port) if m is not None else (
            (reach.asked_port, reach.asked_port) if reach.asked_port is not None else None)
        if gone is not None and backend is not None:
            with contextlib.suppress(Exception):
                await _in_thread(backend.remove, *gone)
            reach.mapped = reach.asked_port = None
        if reach.pinhole is not None and reach.pinhole_backend is not None:
            with contextlib.suppress(Exception):
                await _in_thread(reach.pinhole_backend.remove_pinhole, reach.pinhole.uid)
            reach.pinhole = None


@contextlib.asynccontextmanager
async def port_mapping(port: int, local: list[str], *, wanted: bool,
                       note: Callable[[str], None] | None = None) -> AsyncIterator[Reach]:
    """While inside: the router forwards ``port`` (see :func:`ask_router`; nothing asked unless ``wanted``),
    the lease renewed and the mapping repaired after a router restart (:func:`_keep`, which tells ``note``
    one line when the router stops answering or answers again); on leaving (the match over, ``q``, a
    signal, an error): the mapping removed."""
    if not wanted:
        yield Reach(case="off")
        return
    reach = await ask_router(port, local)
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_keep, reach, note)
            try:
                yield reach
            finally:
                nursery.cancel_scope.cancel()
    finally:
        await release(reach)


def order_given(given: list[str], reach: Reach) -> list[str]:
    """The ``HOST:PORT`` texts to give out in order of use: public IPv6, then public IPv4 (the router's
    mapped address first), then local-network addresses, loopback last.  ``given``: this machine's own
    (already global first, IPv6 first within a group; see ``addresses.worth_giving_out``)."""
    def public(text: str) -> bool:
        return is_public(text.rsplit(":", 1)[0].strip("[]"))
    v6 = [t for t in given if t.startswith("[") and public(t)]
    rest = [t for t in given if t not in v6]
    return list(dict.fromkeys(v6 + reach.public_addresses() + rest))


def tell_lines(given: list[str], reach: Reach, ticket: str = "") -> list[str]:
    """What the host prints for its opponent: one line to pass on, ``Tell your opponent:
    p2ptrumps join ADDRESS`` with the first of ``given`` (the ``HOST:PORT`` texts in order of use, from
    :func:`order_given`); then, in parentheses, the other addresses (loopback ones only when there is
    nothing else) and what the join ``ticket`` (``"/abcd-..."``, or '') is; and when none of them can be
    reached from another home (no public address of its own, no mapping, no pinhole: ``reach``), the way
    that works from anywhere, meeting by code."""
    usable = [a for a in given if not _loopback(a)] or given
    if not usable:
        return []
    out: list[str] = [N_("Tell your opponent: %(command)s", command=f"p2ptrumps join {usable[0]}{ticket}")]
    first_public = is_public(usable[0].rsplit(":", 1)[0].strip("[]"))
    public = [a + ticket for a in usable[1:] if is_public(a.rsplit(":", 1)[0].strip("[]"))]
    local = [a + ticket for a in usable[1:] if a + ticket not in public]
    parts = ([N_("or: %(addresses)s", addresses=", ".join(public))] if public else []) + \
        ([N_("a guest in your home: %(addresses)s", addresses=", ".join(local)) if first_public
          else N_("or: %(addresses)s", addresses=", ".join(local))] if local else []) + \
        ([N_("the part after / is the join ticket: without it the host admits nobody")] if ticket else [])
    if parts:
        out.append(joined(parts, "; ", "(", ")"))
    if reach.case not in ("off", "public", "mapped") and reach.pinhole is None \
            and not any(is_public(a.rsplit(":", 1)[0].strip("[]")) and a.rsplit(":", 1)[0].strip("[]")
                        != reach.unopened_v6 for a in usable):
        out.append(N_("a guest in another home cannot reach these addresses (see above): meet by code instead, "
                      "%(command)s", command=typed("host --code")))
    return out


def _loopback(text: str) -> bool:
    try:
        return ipaddress.ip_address(text.rsplit(":", 1)[0].strip("[]").split("%")[0]).is_loopback
    except ValueError:
        return False


def next_step(addresses: list[str], whys: list[str] | None = None) -> str:
    """For a guest that reached none of ``addresses`` (IP text) in time, each failing for the reason in
    ``whys`` (same order, as :mod:`.dial` words them): what to do next, as a parenthesis to append to
    the error, without its parentheses; a lazy message)."""
    if addresses and whys and all(":" in a and w == "network unreachable" for a, w in zip(addresses, whys,
                                                                                         strict=False)):
        return N_("no IPv6 route from here to the host: ask it for an IPv4 address, or to host with %(option)s",
                  option="--code")
    if addresses and all(_plain(a) is not None and not is_public(a) for a in addresses):
        return N_("that is a local-network address: from outside the host's home, use the public address the host "
                  "printed")
    return N_("no answer: the host's router or firewall drops the connection. The host's start-up lines say why: no "
              "port mapping service (forward the port or turn UPnP on), behind another NAT (carrier-grade: host from "
              "the other side instead), or an IPv6 firewall (allow the port)")


# -- the path a match uses


def describe_path(local: str, peer: str, *, mapped: bool = False) -> str:
    """In words, the path of a connection between our address ``local`` and the peer's ``peer`` (text, as
    the socket reports them; IPv4-mapped IPv6 taken as IPv4): ``"direct over IPv6"``, ``"through your
    router's port mapping"`` (``mapped``: the host forwarded its port and the peer is outside), ``"on your
    local network"`` (a private address, or both in one global IPv6 /64), ``"on this machine"``, or
    ``"direct over the internet (IPv4)"``."""
    a, b = _plain(local), _plain(peer)
    if a is None or b is None:
        return N_("direct")
    if a.is_loopback or b.is_loopback or a == b:
        return N_("on this machine")
    if a.version == 6 and b.version == 6 and a.is_global and b.is_global:
        # One /64 is one network: a home's LAN (the guest next door in the host's own home).
        same = ipaddress.ip_network(f"{a}/64", strict=False) == ipaddress.ip_network(f"{b}/64", strict=False)
        return N_("on your local network") if same else N_("direct over IPv6")
    if not b.is_global:
        return N_("on your local network")
    if mapped and not a.is_global:
        return N_("through your router's port mapping")
    if a.version == 6:
        return N_("direct over IPv6")
    return N_("direct over the internet (IPv4)")


def _plain(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        ip = ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip
