"""The viewer's side of a stall test's handshake, shared by the aiortc and Chromium stall peers:
once enough frames have come, the viewer creates STALL_FILE (the test then stalls the link); when
the link is back, the test writes the epoch time it came back to STALL_END_FILE."""
import os


class StallTimeline:
    def __init__(self, stall_file, stall_end_file, frames_before):
        self.stall_file, self.stall_end_file, self.frames_before = stall_file, stall_end_file, frames_before
        self.stall_end = None

    def observe(self, frames_so_far):
        """Asks for the stall once `frames_so_far` reaches the count; returns the epoch time the
        link came back, or None while the test has not written it (or has half written it)."""
        if frames_so_far >= self.frames_before and not os.path.exists(self.stall_file):
            open(self.stall_file, "w").close()
        if self.stall_end is None:
            try:
                with open(self.stall_end_file) as handle:
                    self.stall_end = float(handle.read())
            except (OSError, ValueError):
                pass
        return self.stall_end
