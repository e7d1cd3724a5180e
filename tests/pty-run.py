#!/usr/bin/env python3
"""Run a command with a real controlling terminal, for tests that need one.

usage: pty-run.py [--answer TEXT | --eof] [--stdin TEXT] [--timeout S] -- CMD...

The command's stdout and stderr are the terminal; its stdin is the
terminal too unless --stdin gives it a pipe holding TEXT (to prove a
prompt reads /dev/tty, not stdin). When the output shows "[y/N]" the
answer is typed (TEXT + newline), or with --eof the terminal sends EOF.
Everything the terminal showed is printed; the exit status is the
command's (128+N for a signal)."""
import fcntl, os, select, sys, termios, time

def main():
    args = sys.argv[1:]
    answer, eof, stdin_text, timeout = None, False, None, 20.0
    while args and args[0] != "--":
        opt = args.pop(0)
        if opt == "--answer": answer = args.pop(0)
        elif opt == "--eof": eof = True
        elif opt == "--stdin": stdin_text = args.pop(0)
        elif opt == "--timeout": timeout = float(args.pop(0))
        else: sys.exit("pty-run: unknown option " + opt)
    cmd = args[1:]
    master, slave = os.openpty()
    rpipe = wpipe = None
    if stdin_text is not None:
        rpipe, wpipe = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        os.dup2(rpipe if rpipe is not None else slave, 0)
        os.dup2(slave, 1)
        os.dup2(slave, 2)
        for fd in (master, slave, rpipe, wpipe):
            if fd is not None and fd > 2: os.close(fd)
        os.execvp(cmd[0], cmd)
    os.close(slave)
    if rpipe is not None:
        os.close(rpipe)
        os.write(wpipe, stdin_text.encode())
        os.close(wpipe)
    out, answered, deadline = b"", False, time.time() + timeout * float(os.environ.get("MOAT_TEST_SLOW", "1"))
    while time.time() < deadline:
        r, _, _ = select.select([master], [], [], 0.1)
        if r:
            try:
                data = os.read(master, 4096)
            except OSError:  # EIO: every process on the terminal is gone
                data = b""
            if not data:
                break
            out += data
        if not answered and b"[y/N]" in out:
            answered = True
            if eof: os.write(master, b"\x04")
            elif answer is not None: os.write(master, answer.encode() + b"\n")
    else:
        os.kill(pid, 9)
        sys.stdout.write(out.decode(errors="replace"))
        sys.exit("pty-run: timed out")
    _, status = os.waitpid(pid, 0)
    sys.stdout.write(out.decode(errors="replace").replace("\r\n", "\n"))
    sys.exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status))

main()
