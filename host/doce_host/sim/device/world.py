"""What the ADC reads through each multiplexer channel, inside the simulated device.

The fields themselves are worked out on the host (doce_host.physics: real magnets, the
sensors' and the ADC's spread), which sends each channel's mean `read_u16` here whenever
a die moves. This side adds each read's noise and plays movements one scan at a time.
"""

from array import array


class World:
    def __init__(self, board, levels=None, noise=250, seed=7):
        self.board = board
        self.noise = noise  # peak counts: see board.json physics.adc.noise_counts
        self.seed = seed
        self.level = array("H", levels or [0] * board.channels)  # mean read per channel
        self.frames = []  # movements in progress: one frame of changes is applied per scan

    def reading(self, channel):
        return self.noisy(self.level[channel])

    def noisy(self, level):
        """One read of an input at `level`: the ADC's noise on it."""
        # two uniform draws: a triangular spread, peaked like real noise, within +-noise
        self.seed = (self.seed * 1103515245 + 12345) & 0x7FFFFFFF
        jitter = 0
        if self.noise:
            span = 2 * self.noise + 1
            jitter = ((self.seed >> 4) % span + (self.seed >> 16) % span) // 2 - self.noise
        v = level + jitter
        return 0 if v < 0 else 65535 if v > 65535 else v

    def set(self, changes):
        """changes: [channel, level, channel, level, ...]"""
        for i in range(0, len(changes) - 1, 2):
            self.level[changes[i]] = changes[i + 1]

    def set_packed(self, data):
        """changes as 3 bytes each: channel, then level (big-endian)."""
        for i in range(0, len(data) - 2, 3):
            self.level[data[i]] = data[i + 1] << 8 | data[i + 2]

    def queue(self, frames):
        self.frames.extend(frames)

    def tick(self):
        """One scan's worth of movement."""
        if self.frames:
            self.set(self.frames.pop(0))
