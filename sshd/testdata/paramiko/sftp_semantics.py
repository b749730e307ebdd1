#!/usr/bin/python3
"""SFTP semantics as seen by paramiko (Debian's python3-paramiko).

Usage: sftp_semantics.py HOST PORT USER KEYFILE KNOWN_HOSTS WORKDIR
Prints one line per case, "PASS name" or "FAIL name: reason"; sshd's Go
test runs it against Airlock's server and against OpenSSH's sshd and
compares. Cases use paramiko's defaults (ciphers, key exchange), so the
connection itself is the first case.
"""
import io
import os
import stat
import sys
import traceback

import paramiko

host, port, username, keyfile, known_hosts, wd = sys.argv[1:7]
port = int(port)
cases = []


def case(fn):
    cases.append(fn)
    return fn


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)


def local(name):
    return os.path.join(wd, name)


def put(sftp, name, data):
    with sftp.open(local(name), "wb") as f:
        f.write(data)


@case
def symlink_relative(sftp):
    sftp.symlink("target", local("l1"))
    check(os.readlink(local("l1")) == "target", "stored %r" % os.readlink(local("l1")))
    check(sftp.readlink(local("l1")) == "target", "readlink %r" % sftp.readlink(local("l1")))


@case
def symlink_dotdot(sftp):
    sftp.symlink("../x/y", local("l2"))
    check(os.readlink(local("l2")) == "../x/y", "stored %r" % os.readlink(local("l2")))


@case
def symlink_absolute(sftp):
    sftp.symlink("/etc/hostname", local("l3"))
    check(os.readlink(local("l3")) == "/etc/hostname", "stored %r" % os.readlink(local("l3")))


@case
def lstat_symlink(sftp):
    check(stat.S_ISLNK(sftp.lstat(local("l1")).st_mode), "lstat of a symlink is not a link")


@case
def mkdir_mode_0700(sftp):
    sftp.mkdir(local("d700"), 0o700)
    m = os.stat(local("d700")).st_mode & 0o7777
    check(m == 0o700, "mode %o" % m)


@case
def mkdir_mode_0750(sftp):
    sftp.mkdir(local("d750"), 0o750)
    m = os.stat(local("d750")).st_mode & 0o7777
    check(m == 0o750, "mode %o" % m)


@case
def create_mode(sftp):
    f = sftp.open(local("m600"), "w")
    f.chmod(0o600)
    f.close()
    check(os.stat(local("m600")).st_mode & 0o777 == 0o600, "fchmod")


@case
def append_mode(sftp):
    put(sftp, "app", b"abc")
    with sftp.open(local("app"), "a") as f:
        f.write(b"def")
    got = open(local("app"), "rb").read()
    check(got == b"abcdef", "content %r" % got)


@case
def rename_refuses_overwrite(sftp):
    put(sftp, "ra", b"a")
    put(sftp, "rb", b"b")
    try:
        sftp.rename(local("ra"), local("rb"))
    except IOError:
        pass
    else:
        raise AssertionError("rename replaced an existing file")
    check(open(local("rb"), "rb").read() == b"b", "target changed")


@case
def rename_to_new_name(sftp):
    put(sftp, "rn", b"n")
    sftp.rename(local("rn"), local("rn2"))
    check(open(local("rn2"), "rb").read() == b"n", "content")


@case
def posix_rename_overwrites(sftp):
    put(sftp, "pa", b"a")
    put(sftp, "pb", b"b")
    sftp.posix_rename(local("pa"), local("pb"))
    check(open(local("pb"), "rb").read() == b"a", "not replaced")


@case
def stat_atime(sftp):
    put(sftp, "t", b"t")
    os.utime(local("t"), (1000000000, 1500000000))
    st = sftp.stat(local("t"))
    check(st.st_atime == 1000000000, "atime %r" % st.st_atime)
    check(st.st_mtime == 1500000000, "mtime %r" % st.st_mtime)


@case
def utime(sftp):
    put(sftp, "u", b"u")
    sftp.utime(local("u"), (1100000000, 1200000000))
    st = os.stat(local("u"))
    check((st.st_atime, st.st_mtime) == (1100000000, 1200000000), "times %r" % ((st.st_atime, st.st_mtime),))


@case
def chmod(sftp):
    put(sftp, "c", b"c")
    sftp.chmod(local("c"), 0o640)
    check(os.stat(local("c")).st_mode & 0o777 == 0o640, "mode")


@case
def truncate(sftp):
    put(sftp, "tr", b"0123456789")
    sftp.truncate(local("tr"), 4)
    check(open(local("tr"), "rb").read() == b"0123", "content")


@case
def stat_missing(sftp):
    try:
        sftp.stat(local("missing"))
    except FileNotFoundError:
        return
    raise AssertionError("no FileNotFoundError")


@case
def exclusive_create(sftp):
    put(sftp, "x", b"x")
    try:
        sftp.open(local("x"), "x")
    except IOError:
        return
    raise AssertionError("exclusive open of an existing file succeeded")


@case
def listdir_attr(sftp):
    os.mkdir(local("ls"))
    for n in ("a", "b", "c"):
        open(os.path.join(local("ls"), n), "w").close()
    names = sorted(a.filename for a in sftp.listdir_attr(local("ls")))
    check(names == ["a", "b", "c"], "names %r" % names)


@case
def normalize(sftp):
    check(sftp.normalize(".") == os.path.realpath(os.path.expanduser("~")), "normalize . = %r" % sftp.normalize("."))
    check(sftp.normalize(local("nonexistent")) == os.path.realpath(local("nonexistent")), "missing last component")


@case
def chdir_relative(sftp):
    os.mkdir(local("cd"))
    open(local("cd/f"), "w").close()
    sftp.chdir(local("cd"))
    try:
        check(sftp.listdir(".") == ["f"], "listdir .")
        sftp.symlink("f", "rel")
        check(os.readlink(local("cd/rel")) == "f", "relative link made in cwd")
    finally:
        sftp.chdir(None)


@case
def put_get_large(sftp):
    data = os.urandom(3 * 1024 * 1024 + 5)
    sftp.putfo(io.BytesIO(data), local("big"))
    buf = io.BytesIO()
    sftp.getfo(local("big"), buf)
    check(buf.getvalue() == data, "round trip differs")


@case
def remove_and_rmdir(sftp):
    put(sftp, "rm", b"r")
    sftp.remove(local("rm"))
    sftp.mkdir(local("rd"))
    sftp.rmdir(local("rd"))
    check(not os.path.exists(local("rm")) and not os.path.exists(local("rd")), "still there")


@case
def readlink_of_file_fails(sftp):
    put(sftp, "nl", b"n")
    try:
        sftp.readlink(local("nl"))
    except IOError:
        return
    raise AssertionError("readlink of a regular file succeeded")


def main():
    client = paramiko.SSHClient()
    client.load_host_keys(known_hosts)
    client.set_missing_host_key_policy(paramiko.RejectPolicy())
    try:
        client.connect(host, port=port, username=username, key_filename=keyfile,
                       look_for_keys=False, allow_agent=False, timeout=20)
    except Exception as e:
        print("FAIL connect_default_algorithms: %s" % e)
        return
    t = client.get_transport()
    print("PASS connect_default_algorithms (cipher %s)" % t.remote_cipher)
    sftp = client.open_sftp()
    for fn in cases:
        try:
            fn(sftp)
            print("PASS %s" % fn.__name__)
        except Exception as e:
            print("FAIL %s: %s" % (fn.__name__, str(e) or traceback.format_exc(limit=1).strip().replace("\n", " ")))
        sys.stdout.flush()
    sftp.close()
    client.close()


main()
