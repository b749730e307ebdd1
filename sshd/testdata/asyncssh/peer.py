#!/usr/bin/python3
"""Exec, SFTP and rekeying as seen by asyncssh (Debian's python3-asyncssh).

Usage: peer.py HOST PORT USER KEYFILE KNOWN_HOSTS WORKDIR
Prints one line per case, "PASS name" or "FAIL name: reason"; sshd's Go
test runs it against Airlock's server and against OpenSSH's sshd and
compares. asyncssh 2.10 keeps sending channel data after the KEXINIT of a
rekey it starts (RFC 4253 says it should not; OpenSSH's sshd tolerates
it), so the rekey cases start rekeys every REKEY bytes the client sends.
"""
import asyncio
import hashlib
import os
import sys
import traceback
import warnings

warnings.simplefilter("ignore")  # Debian's asyncssh imports deprecated ciphers
import asyncssh  # noqa: E402

host, port, username, keyfile, known_hosts, wd = sys.argv[1:7]
port = int(port)
REKEY = 1 << 20
cases = []


def case(fn):
    cases.append(fn)
    return fn


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def connect(**kw):
    return asyncssh.connect(host, port=port, username=username, client_keys=[keyfile],
                            known_hosts=known_hosts, agent_path=None, config=[], **kw)


@case
async def exec_exit_status():
    async with connect() as c:
        r = await c.run("echo out; echo err >&2; exit 7")
        check(r.exit_status == 7 and r.stdout == "out\n" and r.stderr == "err\n",
              "got %r %r %r" % (r.exit_status, r.stdout, r.stderr))


@case
async def exec_stdin_across_rekeys():
    data = os.urandom(3 << 20)
    async with connect(rekey_bytes=REKEY) as c:
        r = await c.run("sha256sum; exit 7", input=data, encoding=None)
        want = hashlib.sha256(data).hexdigest().encode()
        check(r.exit_status == 7 and r.stdout.startswith(want),
              "exit %r stdout %r" % (r.exit_status, r.stdout[:80]))


@case
async def sftp_put_get():
    data = os.urandom((3 << 20) + 5)
    src, up, down = (os.path.join(wd, n) for n in ("src", "up", "down"))
    with open(src, "wb") as f:
        f.write(data)
    async with connect() as c:
        async with c.start_sftp_client() as s:
            await s.put(src, up)
            await s.get(up, down)
    check(open(down, "rb").read() == data, "round trip differs")


@case
async def sftp_put_across_rekeys():
    data = os.urandom(5 << 20)
    src, up = os.path.join(wd, "src2"), os.path.join(wd, "up2")
    with open(src, "wb") as f:
        f.write(data)
    async with connect(rekey_bytes=REKEY) as c:
        async with c.start_sftp_client() as s:
            await s.put(src, up)
            check(await s.getsize(up) == len(data), "size differs")
    check(open(up, "rb").read() == data, "upload differs")


async def main():
    for fn in cases:
        try:
            await asyncio.wait_for(fn(), 60)
            print("PASS", fn.__name__, flush=True)
        except Exception as e:  # noqa: BLE001
            print("FAIL %s: %s" % (fn.__name__, (repr(e) or traceback.format_exc()).replace("\n", " ")), flush=True)


asyncio.run(main())
