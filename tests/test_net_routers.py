"""Routers as they are (p2ptrumps/net/portmap.py, p2ptrumps/net/natpmp.py), each a fake router on loopback:

* NAT-PMP (RFC 6886) is the exact bytes of the RFC; a gateway that maps our port to another external port
  is given out with that port, and on stop the mapping is removed by the mapping actually made (NAT-PMP
  names it by our internal port: a removal by the external port would leave it open for its lease);
* a UPnP-IGD router that takes only permanent leases (error 725, OnlyPermanentLeasesSupported: MikroTik,
  some Zyxel) is asked again with lease 0 and the permanent mapping is removed when the host stops.

The same against the real miniupnpd: tests/test_netlab.py."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import ClassVar

import pytest

from p2ptrumps.net import natpmp, portmap

PUBLIC = "11.47.9.1"  # the lab's internet: outside every reserved range, never on the wire here (loopback only)


def test_nat_pmp_requests_are_the_bytes_of_rfc_6886() -> None:
    assert natpmp.address_request() == bytes.fromhex("0000")
    assert natpmp.map_request(4816, 4816, 3600) == bytes.fromhex("0002 0000 12d0 12d0 00000e10")
    assert natpmp.map_request(4816, 0, 0) == bytes.fromhex("0002 0000 12d0 0000 00000000")  # removal, §3.4
    assert natpmp.parse_address_answer(bytes.fromhex("0080 0000 00001234 0b2f0901")) == PUBLIC
    assert natpmp.parse_map_answer(bytes.fromhex("0082 0000 00001234 12d0 9cbb 00000e10")) == natpmp.Mapping(
        4816, 40123, 3600)
    with pytest.raises(natpmp.NatPmpError, match=r"^NAT-PMP result 2: not authorized \(port mapping is turned off on "
                                                 r"the router\)$") as info:
        natpmp.parse_map_answer(bytes.fromhex("0082 0002 00001234 12d0 0000 00000000"))
    assert info.value.code == 2
    for bad in (b"", bytes.fromhex("0081 0000 00001234 12d0 9cbb 00000e10"), bytes.fromhex("0082 0000")):
        with pytest.raises(natpmp.NatPmpError, match="is not a NAT-PMP answer"):
            natpmp.parse_map_answer(bad)


class FakeNatPmp:
    """A NAT-PMP gateway on 127.0.0.1 whose external port 4816 is taken: it maps our 4816 to 40123.
    ``requests``: every request it got, bytes."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = int(self.sock.getsockname()[1])
        self.requests: list[bytes] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        for _ in range(100_000):  # bounded: a pass per 0.2 s at most
            if self.stop.is_set():
                return
            try:
                data, peer = self.sock.recvfrom(64)
            except TimeoutError:
                continue
            self.requests.append(data)
            if data == natpmp.address_request():
                self.sock.sendto(bytes.fromhex("0080 0000 00001234") + socket.inet_aton(PUBLIC), peer)
            elif len(data) == 12 and data[1] == 2:
                internal = int.from_bytes(data[4:6], "big")
                lifetime = int.from_bytes(data[8:12], "big")
                external = 40123 if lifetime else 0
                self.sock.sendto(bytes.fromhex("0082 0000 00001234") + internal.to_bytes(2, "big")
                                 + external.to_bytes(2, "big") + lifetime.to_bytes(4, "big"), peer)

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


@pytest.fixture
def fake_nat_pmp() -> Iterator[FakeNatPmp]:
    gateway = FakeNatPmp()
    try:
        yield gateway
    finally:
        gateway.close()


async def test_a_nat_pmp_mapping_to_another_port_is_given_out_and_removed_by_what_was_made(
        fake_nat_pmp: FakeNatPmp) -> None:
    backend = portmap._NatPmp("127.0.0.1", pmp_port=fake_nat_pmp.port)
    reach = portmap.Reach(case="no-service", port=4816, _backend=backend)  # as ask_router finds it
    await portmap._map(reach, backend, PUBLIC, 4816)
    assert reach.public_addresses() == [f"{PUBLIC}:40123"]
    assert reach.lines() == [f"port mapping: your router (NAT-PMP) forwards {PUBLIC}:40123 to this machine (renewed "
                             "while hosting, removed when you stop)"]
    assert await portmap._refresh(reach) and reach.public_addresses() == [f"{PUBLIC}:40123"]
    await portmap.release(reach)
    assert fake_nat_pmp.requests == [
        bytes.fromhex("0002 0000 12d0 12d0 00000e10"),  # 4816, please, for an hour
        bytes.fromhex("0002 0000 12d0 9cbb 00000e10"),  # the renewal suggests the port granted
        bytes.fromhex("0002 0000 12d0 0000 00000000"),  # removed: our port 4816 names it, not 40123
    ]
    assert reach.mapped is None


# ----- UPnP-IGD: a router that takes only permanent leases


DESCRIPTION = """<?xml version="1.0"?>
<root xmlns="urn:schemas-upnp-org:device-1-0"><specVersion><major>1</major><minor>0</minor></specVersion>
<device><deviceType>urn:schemas-upnp-org:device:InternetGatewayDevice:1</deviceType>
<friendlyName>only permanent leases</friendlyName><manufacturer>test</manufacturer><modelName>725</modelName>
<UDN>uuid:00000000-0000-0000-0000-000000000725</UDN>
<serviceList><service><serviceType>urn:schemas-upnp-org:service:WANIPConnection:1</serviceType>
<serviceId>urn:upnp-org:serviceId:WANIPConn1</serviceId><SCPDURL>/wanip.xml</SCPDURL>
<controlURL>/ctl</controlURL><eventSubURL>/evt</eventSubURL></service></serviceList></device></root>"""


def _action(name: str, args: list[tuple[str, str, str]]) -> str:
    return (f"<action><name>{name}</name><argumentList>" + "".join(
        f"<argument><name>{a}</name><direction>{d}</direction><relatedStateVariable>{v}</relatedStateVariable>"
        "</argument>" for a, d, v in args) + "</argumentList></action>")


_STATE = {"RemoteHost": "string", "ExternalPort": "ui2", "PortMappingProtocol": "string", "InternalPort": "ui2",
          "InternalClient": "string", "PortMappingEnabled": "boolean", "PortMappingDescription": "string",
          "PortMappingLeaseDuration": "ui4", "ExternalIPAddress": "string"}
SCPD = ("""<?xml version="1.0"?><scpd xmlns="urn:schemas-upnp-org:service-1-0"><specVersion><major>1</major>
<minor>0</minor></specVersion><actionList>"""
        + _action("GetExternalIPAddress", [("NewExternalIPAddress", "out", "ExternalIPAddress")])
        + _action("AddPortMapping", [("NewRemoteHost", "in", "RemoteHost"), ("NewExternalPort", "in", "ExternalPort"),
                                     ("NewProtocol", "in", "PortMappingProtocol"),
                                     ("NewInternalPort", "in", "InternalPort"),
                                     ("NewInternalClient", "in", "InternalClient"),
                                     ("NewEnabled", "in", "PortMappingEnabled"),
                                     ("NewPortMappingDescription", "in", "PortMappingDescription"),
                                     ("NewLeaseDuration", "in", "PortMappingLeaseDuration")])
        + _action("DeletePortMapping", [("NewRemoteHost", "in", "RemoteHost"),
                                        ("NewExternalPort", "in", "ExternalPort"),
                                        ("NewProtocol", "in", "PortMappingProtocol")])
        + "</actionList><serviceStateTable>" + "".join(
            f'<stateVariable sendEvents="no"><name>{n}</name><dataType>{t}</dataType></stateVariable>'
            for n, t in _STATE.items()) + "</serviceStateTable></scpd>")
ENVELOPE = ('<?xml version="1.0"?><s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" '
            's:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/"><s:Body>{}</s:Body></s:Envelope>')
FAULT = ("<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>"
         '<UPnPError xmlns="urn:schemas-upnp-org:control-1-0"><errorCode>725</errorCode>'
         "<errorDescription>OnlyPermanentLeasesSupported</errorDescription></UPnPError></detail></s:Fault>")


def _arg(body: str, name: str) -> str:
    return body.split(f"<{name}>", 1)[1].split(f"</{name}>", 1)[0] if f"<{name}>" in body else ""


class OnlyPermanent(BaseHTTPRequestHandler):
    """A UPnP-IGD v1 router whose AddPortMapping refuses any lease but 0 with error 725."""

    calls: ClassVar[list[tuple[str, ...]]] = []

    def log_message(self, format: str, *args: object) -> None:
        pass

    def _send(self, status: int, text: str, kind: str = "text/xml") -> None:
        data = text.encode()
        self.send_response(status)
        self.send_header("Content-Type", f'{kind}; charset="utf-8"')
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        self._send(200, DESCRIPTION if self.path == "/desc.xml" else SCPD)

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
        action = self.headers.get("SOAPACTION", "").strip('"').rsplit("#", 1)[-1]
        service = "urn:schemas-upnp-org:service:WANIPConnection:1"
        if action == "GetExternalIPAddress":
            return self._send(200, ENVELOPE.format(f'<u:{action}Response xmlns:u="{service}"><NewExternalIPAddress>'
                                                   f"{PUBLIC}</NewExternalIPAddress></u:{action}Response>"))
        port = _arg(body, "NewExternalPort")
        if action == "AddPortMapping":
            lease = _arg(body, "NewLeaseDuration")
            self.calls.append((action, port, _arg(body, "NewInternalPort"), lease))
            if lease != "0":
                return self._send(500, ENVELOPE.format(FAULT))
        else:
            self.calls.append((action, port))
        return self._send(200, ENVELOPE.format(f'<u:{action}Response xmlns:u="{service}"></u:{action}Response>'))


@pytest.fixture
def only_permanent() -> Iterator[str]:
    OnlyPermanent.calls = []
    server = ThreadingHTTPServer(("127.0.0.1", 0), OnlyPermanent)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/desc.xml"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def test_a_router_that_takes_only_permanent_leases_maps_and_the_mapping_goes_when_the_host_stops(
        only_permanent: str) -> None:
    up = portmap._Upnp(only_permanent)
    reach = portmap.Reach(case="no-service", port=4816, _backend=up)  # as ask_router finds it
    await portmap._map(reach, up, PUBLIC, 4816)
    assert (reach.case, reach.public_addresses()) == ("mapped", [f"{PUBLIC}:4816"])
    assert reach.mapped is not None and reach.mapped.lease_s == 0
    assert reach.lines() == [f"port mapping: your router (UPnP-IGD v1) forwards {PUBLIC}:4816 to this machine (a "
                             "permanent mapping, the only kind your router makes: removed when you stop)"]
    assert await portmap._refresh(reach)  # checked again as permanent: asked with lease 0 straight away
    await portmap.release(reach)
    assert OnlyPermanent.calls == [("AddPortMapping", "4816", "4816", "3600"), ("AddPortMapping", "4816", "4816", "0"),
                                   ("AddPortMapping", "4816", "4816", "0"), ("DeletePortMapping", "4816")]
    assert reach.mapped is None
