#!/usr/bin/python3
"""One SFTP transfer with asyncssh's defaults, for sshd's benchmark.

Usage: transfer.py put|get PORT USER KEYFILE KNOWN_HOSTS SRC DST
"""
import asyncio
import sys
import warnings

warnings.simplefilter("ignore")  # Debian's asyncssh imports deprecated ciphers
import asyncssh  # noqa: E402

op, port, user, key, known_hosts, src, dst = sys.argv[1:8]


async def main():
    async with asyncssh.connect("127.0.0.1", port=int(port), username=user, client_keys=[key],
                                known_hosts=known_hosts, agent_path=None, config=[]) as c:
        async with c.start_sftp_client() as s:
            await (s.put if op == "put" else s.get)(src, dst)


asyncio.run(main())
