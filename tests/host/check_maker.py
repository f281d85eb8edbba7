"""The maker's part of `doce check board`, done on a simulated board: the hands take the dice off,
put one down, press the button, and the eyes say where each LED's light is, as the PCB model
shows it (sim/device/machine.py: a broken chain or a swapped pair shows there as on copper)."""

from doce_host.board_check import led_places
from doce_host.check_command import Maker


class SimMaker(Maker):
    def __init__(self, sim, spec):
        self.sim, self.places = sim, led_places(spec)
        self.asked = []  # what the check asked of the maker, in order

    def clear_board(self, squares):
        self.asked.append("clear " + " ".join(squares))
        for cell in list(self.sim.pieces):
            self.sim.lift(cell)

    def put_die(self, square):
        self.asked.append("put " + square)
        self.sim.place(square, "white 3")

    def take_die(self, square):
        self.asked.append("take " + square)
        self.sim.lift(square)

    def press_button(self):
        self.asked.append("press")
        self.sim.press(0.2)

    def lit(self):
        return [i for i, colour in enumerate(self.sim.leds()) if any(colour)]

    def where_lit(self, led, expected):
        lit = self.lit()
        return self.places[lit[0]] if lit else None

    def any_lit(self):
        return bool(self.lit())
