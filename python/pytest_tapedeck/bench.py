"""Runs a long-lived ``bench`` command (replay or proxy) and reads what it says."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field

_LISTENING = re.compile(r"^listening on (\S+)")
_MISS = re.compile(r"^bench replay: (no recorded interaction matches .*)$")
# bench lists which ones after a colon (method, path, index); older releases ended the line.
_UNUSED = re.compile(r"^bench replay: (\d+) recorded interactions were never requested(?:: (.*))?$")


class BenchError(RuntimeError):
    """bench did not start, or said why it stopped."""


def bench_command() -> list[str]:
    """The command that runs tapedeck's CLI: $TAPEDECK_BENCH, else bench on PATH, else npx."""
    configured = os.environ.get("TAPEDECK_BENCH")
    if configured:
        return shlex.split(configured)
    found = shutil.which("bench")
    if found:
        return [found]
    return ["npx", "--no-install", "bench"]


@dataclass
class BenchProcess:
    """One ``bench replay`` or ``bench proxy``: started, its URL read, stopped by its own PID."""

    args: list[str]
    startup_timeout: float = 60.0
    url: str = ""
    returncode: int | None = None
    _proc: subprocess.Popen[str] | None = None
    _stderr: object = None
    _lines: list[str] = field(default_factory=list)

    def start(self) -> BenchProcess:
        # stderr goes to a file: a chatty replay must never block on a full pipe.
        self._stderr = tempfile.TemporaryFile(mode="w+", encoding="utf-8", prefix="tapedeck-")
        try:
            self._proc = subprocess.Popen(
                [*bench_command(), *self.args],
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                stdin=subprocess.DEVNULL,
                text=True,
                # Its own process group: stopping it reaches npx's child too, and nothing else.
                start_new_session=True,
            )
        except FileNotFoundError as exc:
            raise BenchError(
                f"cannot run {bench_command()[0]!r}: set TAPEDECK_BENCH to the bench command "
                "(e.g. 'node node_modules/tapedeck/bin/bench.js') or put bench on PATH"
            ) from exc
        found: list[str] = []
        reader = threading.Thread(target=self._read_url, args=(found,), daemon=True)
        reader.start()
        reader.join(self.startup_timeout)
        if not found:
            self.stop()
            said = self.stderr().strip().splitlines()
            raise BenchError(
                f"bench {' '.join(self.args[:1])} did not start"
                + (f": {said[-1]}" if said else f" within {self.startup_timeout:.0f} s")
            )
        self.url = found[0]
        return self

    def _read_url(self, found: list[str]) -> None:
        assert self._proc is not None and self._proc.stdout is not None
        for line in self._proc.stdout:
            match = _LISTENING.match(line)
            if match:
                found.append(match.group(1))
                return

    def stop(self, timeout: float = 30.0) -> int | None:
        """SIGTERM to the group (bench saves or reports, then exits), SIGKILL if it will not."""
        if self._proc is None or self.returncode is not None:
            return self.returncode
        if self._proc.poll() is None:
            try:
                os.killpg(self._proc.pid, signal.SIGTERM)
                self.returncode = self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                os.killpg(self._proc.pid, signal.SIGKILL)
                self.returncode = self._proc.wait()
            except ProcessLookupError:
                self.returncode = self._proc.wait()
        else:
            self.returncode = self._proc.returncode
        if self._proc.stdout is not None:
            self._proc.stdout.close()
        return self.returncode

    def stderr(self) -> str:
        if self._stderr is None:
            return ""
        self._stderr.seek(0)  # type: ignore[attr-defined]
        return self._stderr.read()  # type: ignore[attr-defined]

    def misses(self) -> list[str]:
        """Requests no recording matched, each with the nearest recordings bench named."""
        return [m.group(1) for line in self.stderr().splitlines() if (m := _MISS.match(line))]

    def unused(self) -> tuple[int, str]:
        """How many recorded interactions no request asked for, and which (bench says so when it stops)."""
        for line in self.stderr().splitlines():
            match = _UNUSED.match(line)
            if match:
                return int(match.group(1)), match.group(2) or ""
        return 0, ""
