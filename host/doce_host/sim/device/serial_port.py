"""The board's USB serial port, as strict as the ESP32 port of MicroPython v1.28 makes it.

An ESP32 DevKitC's USB goes through a USB-to-UART chip to UART0, MicroPython's REPL port:
- bytes arrive at the baud rate, and the UART's interrupt moves them into a small ring
  buffer whatever the firmware is doing; a byte that finds the ring full is DROPPED
  (ports/esp32/uart.c uart_irq_handler -> ringbuf_put, which refuses when full). The
  firmware drains the ring only when it reads. Ctrl-C (0x03) never enters the ring: it
  raises KeyboardInterrupt (mp_sched_keyboard_interrupt).
- a write fills the 128-byte transmit FIFO and, while bytes are left over, waits one
  FreeRTOS tick and tries again (ports/esp32/uart.c uart_stdout_tx_strn): the writer is
  held until all but the last FIFO-full of its bytes have gone out, in 10 ms steps.

Port does both against a clock it is given: the step-by-step harness's simulated clock
(run.py's Loopback), or real time (RealPort, serve.py, on a pseudo-terminal).
"""

import select
import sys
import time

import esp

BAUD = 115200  # ports/esp32/uart.h: MICROPY_HW_UART_REPL_BAUD
NS_PER_BYTE = 10 * 1000000000 // BAUD  # 8N1 is ten bits a byte: 86,805 ns
RING = 260  # ports/esp32/mphalport.c: stdin_ringbuf_array[260]; py/ringbuf.h keeps one slot free
TX_FIFO = 128  # SOC_UART_FIFO_LEN on the ESP32 (ESP32 TRM, UART: a 128-byte TX FIFO)
TICK_US = 10000  # uart.c waits ulTaskNotifyTake(pdFALSE, 1): one tick at ESP-IDF's CONFIG_FREERTOS_HZ=100


class Port:
    """One side of the link as the firmware sees it: readinto/ipoll for bytes in, write for out."""

    def __init__(self, now_us, hold_us, sink):
        self.now_us = now_us  # the board's clock, in microseconds
        self.hold_us = hold_us  # the writer is held this long: the clock moves on
        self.sink = sink  # where written bytes go, towards the host
        self.ring = bytearray(RING)
        self.put = 0
        self.get = 0
        self.dropped = 0  # bytes that found the ring full
        self.fifo_ns = 0  # time the bytes in the transmit FIFO still need to go out
        self.fifo_at = now_us()
        self.held_us = 0  # every write's wait, added up
        self.longest_hold_us = 0
        self.sys_stdin = Stdin(self)  # sys.stdin and sys.stdout as the firmware finds them on this port
        self.sys_stdout = Stdout(self)

    # bytes in

    def receive(self, byte):
        """What the UART's interrupt does with one byte from the line."""
        if byte == 3:
            raise KeyboardInterrupt
        after = self.put + 1 if self.put + 1 < RING else 0
        if after == self.get:
            self.dropped += 1
            return
        self.ring[self.put] = byte
        self.put = after

    def take_in(self):
        """Move the bytes that have arrived by now into the ring (each harness its own way)."""

    def ipoll(self, timeout):
        self.take_in()
        return (self,) if self.get != self.put else ()

    def readinto(self, buf):
        self.take_in()
        n = 0
        while n < len(buf) and self.get != self.put:
            buf[n] = self.ring[self.get]
            self.get = self.get + 1 if self.get + 1 < RING else 0
            n += 1
        return n

    def buffered(self):
        return (self.put - self.get) % RING

    # bytes out

    def write(self, data):
        if esp.pending:  # ESP-IDF's log line, written from its own task: in the middle of ours
            cut = len(data) // 2
            data = bytes(data[:cut]) + esp.pending.pop(0) + bytes(data[cut:])
        n = len(data)
        now = self.now_us()
        self.fifo_ns = max(0, self.fifo_ns - time.ticks_diff(now, self.fifo_at) * 1000)
        held = 0
        while True:  # uart_stdout_tx_strn: fill the FIFO, wait a tick while bytes are left
            room = TX_FIFO - (self.fifo_ns + NS_PER_BYTE - 1) // NS_PER_BYTE
            take = min(room, n)
            n -= take
            self.fifo_ns += take * NS_PER_BYTE
            if n <= 0:
                break
            held += TICK_US
            self.fifo_ns = max(0, self.fifo_ns - TICK_US * 1000)
        if held:
            self.held_us += held
            self.longest_hold_us = max(self.longest_hold_us, held)
            self.hold_us(held)
        self.fifo_at = self.now_us()
        self.sink(data)
        return len(data)


class Stdin:
    """sys.stdin: its .buffer reads the port's bytes."""

    def __init__(self, port):
        self.buffer = port


class Stdout:
    """sys.stdout: a text write is "cooked", each \n sent as \r\n (ports/esp32/mphalport.c,
    mp_hal_stdout_tx_strn_cooked); .buffer writes the bytes as they are."""

    def __init__(self, port):
        self.buffer = port

    def write(self, data):
        return self.buffer.write(bytes(data).replace(b"\n", b"\r\n"))


class RealPort(Port):
    """The port in real time: bytes come from stdin, a pseudo-terminal the simulator feeds at
    the baud rate (serial_sim.py paces them), and go out on stdout."""

    def __init__(self):
        self.stdin = sys.stdin.buffer
        self.poller = select.poll()
        self.poller.register(sys.stdin, select.POLLIN)
        self.one = bytearray(1)
        out = sys.stdout.buffer
        super().__init__(time.ticks_us, time.sleep_us, out.write)

    def take_in(self):
        # Whatever waits on the pseudo-terminal arrived since the firmware last read: it
        # goes into the ring, and what does not fit is lost, as on the chip.
        while self._waiting():
            if not self.stdin.readinto(self.one):
                return
            self.receive(self.one[0])

    def _waiting(self):
        for _ in self.poller.ipoll(0):
            return True
        return False

def usb_link():
    """The firmware's link on this port (serve.py puts it in place of doce.esp32's): made by
    doce.esp32.link_on, which picks the stream it writes to."""
    from doce import esp32
    port = RealPort()
    return esp32.link_on(port.sys_stdin, port.sys_stdout, port)
