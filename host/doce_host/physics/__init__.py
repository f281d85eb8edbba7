"""The board's physics: the magnets in the dice, the fields they make, and what the
hall sensors and the ESP32's ADC turn those fields into.

    dice.py      a die's magnets, from the die code, and where a pose puts them
    readout.py   sensor and ADC: millitesla in, `read_u16` counts out, with part spread
    rail.py      the 3.3 V rail as a sensor group switches on, and what stays of it
    scene.py     dice on the board, each in its own pose: every sensor's reading, cached
    poses.py     where a hand leaves a die: seated, bridging, leaning, landing, dropped
    decode.py    the firmware's reading of a square, array-wise (held to the scanner by a test)
    reading.py   many squares on boards drawn within tolerance, read read after read
    search.py    the worst pose of a family, searched for
    campaign.py  `make physics`: every family, drawn within every tolerance, read as the board reads

Every number comes from the "physics" section of hardware/board.json, so the model and
the board it describes cannot drift apart; hardware/README.md cites where each comes from.
Lengths are in millimetres and fields in millitesla throughout, except at magpylib's door
(SI units).
"""
