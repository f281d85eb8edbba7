"""The board's physics: the magnets in the dice, the fields they make, and what the
hall sensors and the ESP32's ADC turn those fields into.

    dice.py      a die's magnets, from the die code, and where a pose puts them
    readout.py   sensor and ADC: millitesla in, `read_u16` counts out, with part spread
    scene.py     dice on the board, each in its own pose: every sensor's reading, cached
    campaign.py  `make physics`: placements drawn within every tolerance, read by the firmware's own decoder

Every number comes from the "physics" section of hardware/board.json, so the model and
the board it describes cannot drift apart; hardware/README.md cites where each comes from.
Lengths are in millimetres and fields in millitesla throughout, except at magpylib's door
(SI units).
"""
