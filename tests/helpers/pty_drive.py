#!/usr/bin/python3
"""Drive a command on a real pseudo-terminal, as a user at a keyboard would.

usage: pty_drive.py [--timeout S] SCRIPT -- CMD [ARG...]

CMD runs as the session leader with a new pty (24x80) as its controlling
terminal and as its stdin, stdout and stderr (what a terminal emulator gives
a login shell). SCRIPT is a file of steps, one per line ('#' comments):

  expect REGEX     wait (up to 10 s, times MOAT_TEST_SLOW when set: an
                   emulated machine) until the output since the last match
                   matches REGEX (Python re, searched in the output with
                   "\\r\\n" turned into "\\n"); the next expect looks after it
  absent REGEX     the output since the last match must not match REGEX
  send TEXT        type TEXT; escapes as in Python strings (\\x03 is ^C,
                   \\x1a ^Z, \\x04 ^D, \\r Enter)
  line TEXT        type TEXT and Enter (\\r)
  resize ROWS COLS set the terminal's size (TIOCSWINSZ on the master: the
                   kernel sends SIGWINCH to the foreground process group)
  sleep SECONDS
  termios          print "pty_drive: termios icanon=N echo=N isig=N" for the
                   terminal as it is now (a program that left it raw shows 0s)
  wait             wait until CMD exits

Everything the terminal shows is copied to stdout ("\\r\\n" as "\\n"), then
"pty_drive: exited N" or "pty_drive: killed by signal N" (the raw wait status
of CMD, as a C caller sees it). Exits with CMD's status (128+N for a signal);
124 when an expect or wait times out (CMD's process group is killed), 125
when an absent pattern showed up."""
import codecs, fcntl, os, re, select, signal, struct, sys, termios, time

# How much slower than a real machine this one is (tests/kernel/inside sets
# it under emulation): what is waited for before giving up, never how long
# a step sleeps or watches.
SLOW = float(os.environ.get("MOAT_TEST_SLOW", "1"))


def out(text):
    sys.stdout.write(text)
    sys.stdout.flush()


class Driver:
    def __init__(self, cmd, timeout):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.pid = os.fork()
        if self.pid == 0:
            os.setsid()
            fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
            for fd in (0, 1, 2):
                os.dup2(slave, fd)
            if slave > 2:
                os.close(slave)
            os.close(self.master)
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            try:
                os.execvp(cmd[0], cmd)
            finally:
                os._exit(127)
        os.close(slave)
        self.buf = ""  # everything shown, \r\n as \n
        self.pos = 0  # where the next expect starts looking
        self.status = None
        self.deadline = time.time() + timeout

    def pump(self, wait):
        """Read what the terminal shows for up to `wait` seconds."""
        end = time.time() + wait
        while True:
            left = max(0.0, end - time.time())
            r, _, _ = select.select([self.master], [], [], min(left, 0.05))
            if r:
                try:
                    data = os.read(self.master, 65536)
                except OSError:  # EIO: nothing holds the terminal any more
                    data = b""
                if data:
                    text = data.decode(errors="replace").replace("\r\n", "\n")
                    self.buf += text
                    out(text)
                    continue
                self.reap(block=True)
                return
            self.reap(block=False)
            if time.time() >= end:
                return

    def reap(self, block):
        if self.status is not None:
            return
        pid, st = os.waitpid(self.pid, 0 if block else os.WNOHANG)
        if pid == self.pid:
            self.status = st

    def give_up(self, why, code):
        out("\npty_drive: %s\n" % why)
        for target in (-self.pid, self.pid):
            try:
                os.kill(target, signal.SIGKILL)
            except OSError:
                pass
        self.reap(block=True)
        sys.exit(code)

    def expect(self, pattern, timeout=10.0):
        rx = re.compile(pattern)
        end = min(time.time() + timeout * SLOW, self.deadline)
        while True:
            m = rx.search(self.buf, self.pos)
            if m:
                self.pos = m.end()
                return
            if time.time() >= end:
                self.give_up("timed out waiting for /%s/" % pattern, 124)
            if self.status is not None:
                self.pump(0.2)  # the last output may still be in flight
                m = rx.search(self.buf, self.pos)
                if m:
                    self.pos = m.end()
                    return
                self.give_up("the command exited before /%s/ showed" % pattern, 124)
            self.pump(0.05)

    def wait(self):
        while self.status is None:
            if time.time() >= self.deadline:
                self.give_up("timed out waiting for the command to exit", 124)
            self.pump(0.05)
        self.pump(0.1)

    def run(self, steps):
        for raw in steps:
            line = raw.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            verb, _, arg = line.partition(" ")
            if verb == "expect":
                self.expect(arg)
            elif verb == "absent":
                self.pump(0.05)
                if re.search(arg, self.buf[self.pos:]):
                    self.give_up("unexpected /%s/" % arg, 125)
            elif verb in ("send", "line"):
                text = codecs.decode(arg, "unicode_escape") + ("\r" if verb == "line" else "")
                os.write(self.master, text.encode("latin-1"))
                self.pump(0.02)
            elif verb == "resize":
                rows, cols = (int(v) for v in arg.split())
                fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
                self.pump(0.02)
            elif verb == "sleep":
                self.pump(float(arg))
            elif verb == "termios":
                self.pump(0.05)
                lflag = termios.tcgetattr(self.master)[3]
                out("\npty_drive: termios icanon=%d echo=%d isig=%d\n" % (
                    bool(lflag & termios.ICANON), bool(lflag & termios.ECHO), bool(lflag & termios.ISIG)))
            elif verb == "wait":
                self.wait()
            else:
                sys.exit("pty_drive: unknown step '%s'" % line)
        self.wait()
        st = self.status
        if os.WIFSIGNALED(st):
            out("\npty_drive: killed by signal %d\n" % os.WTERMSIG(st))
            return 128 + os.WTERMSIG(st)
        out("\npty_drive: exited %d\n" % os.WEXITSTATUS(st))
        return os.WEXITSTATUS(st)


def main():
    args = sys.argv[1:]
    timeout = 30.0
    if args[:1] == ["--timeout"]:
        timeout = float(args[1])
        args = args[2:]
    if len(args) < 3 or args[1] != "--":
        sys.exit(__doc__)
    with open(args[0]) as f:
        steps = f.readlines()
    sys.exit(Driver(args[2:], timeout * SLOW).run(steps))


main()
