"""What a PCB fab and assembler take, from the routed board (pcb/doce.kicad_pcb): Gerbers and
drill files by KiCad's own plotter, and the BOM and placement file (CPL) in JLCPCB's columns.

    /usr/bin/python3 hardware/fab.py [OUT]     # KiCad's Python; writes hardware/fab/ (or OUT)

fab/doce-gerbers.zip holds the Gerbers and drill files, the one file to upload for the bare
board. fab/plate/ holds the same for the floor plate (bare FR-4: its outline and unplated holes,
empty copper layers so a fab's viewer reads it as a board with no copper), built here from
layout.py in the main board's frame, so its holes sit where the PCB's plate holes do. Dates
KiCad writes into them are left out, so the files change only with the board.
"""

import csv
import io
import re
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import layout as layout_module  # noqa: E402
import pcb  # noqa: E402
import schematic  # noqa: E402  (its constants only: no SKiDL needed)

OUT = HERE / "fab"
BOARD_FILE = HERE / "pcb" / "doce.kicad_pcb"
PLATE = "plate"

# (KiCad layer, file suffix, what it is); the suffixes are KiCad's own names for them
LAYERS = [("F.Cu", "F_Cu", "top copper"), ("In1.Cu", "In1_Cu", "inner 1: ground plane"),
          ("In2.Cu", "In2_Cu", "inner 2: 5 V and 3.3 V planes"), ("B.Cu", "B_Cu", "bottom copper"),
          ("F.Mask", "F_Mask", "top solder mask"), ("B.Mask", "B_Mask", "bottom solder mask"),
          ("F.Paste", "F_Paste", "top paste (stencil)"), ("F.SilkS", "F_Silkscreen", "top silkscreen"),
          ("B.SilkS", "B_Silkscreen", "bottom silkscreen"), ("Edge.Cuts", "Edge_Cuts", "board outline")]

# LCSC's part numbers for the MPNs of schematic.py, as JLCPCB's parts library lists them.
# A part left out here is matched by its Comment (the MPN) when the order is placed; README
# ("Assembly") says which are missing and why. Those added since the first list, and the
# public record that pairs each number with its exact MPN (none checked on lcsc.com itself):
#   C105588  YAGEO RC0603FR-07100RL: the "LCSC Part Number" field (with its lcsc.com product link)
#            of a published KiCad design's 100 Ohm 0603 resistor
#   C15850   Samsung CL21A106KAYNNNE: LCSC's own datasheet file for it,
#            datasheet.lcsc.com/szlcsc/Samsung-Electro-Mechanics-CL21A106KAYNNNE_C15850.pdf
#   C131941  TI TPS22918DBVR: JLCPCB's part page address, jlcpcb.com/partdetail/
#            TexasInstruments-TPS22918DBVR/C131941, in a published design's BOM (and the same
#            pairing in three other published designs' BOMs)
#   C29936   Samsung CL10B105KA8NNNC: LCSC's own datasheet file for it, datasheet.lcsc.com/szlcsc/
#            1811071810_Samsung-Electro-Mechanics-CL10B105KA8NNNC_C29936.pdf (a published KiCad
#            design's "LCSC" field), and LCSC's product address .../product-detail/Multilayer-Ceramic-
#            Capacitors-MLCC-SMD-SMT_Samsung-Electro-Mechanics-CL10B105KA8NNNC_C29936.html
#   C105881  YAGEO RC0603FR-07330RL: LCSC's own datasheet file for it,
#            datasheet.lcsc.com/szlcsc/YAGEO-RC0603FR-07330RL_C105881.pdf (a published KiCad
#            design's "LCSC" field), and the same pairing in a JLCPCB-exported BOM
#   C93157   Omron B3F-1000: LCSC's product address, lcsc.com/product-detail/
#            Tactile-Switches_OMRON_B3F-1000_B3F-1000_C93157.html, in a published design's BOM
#   C6818    TI SN74HC138DR: unconfirmed, one component library's sourcing table that names no page a
#            maker can open (it gives Nexperia 74HC138D,653, the same pinout and package, as C5602);
#            hardware/README.md asks the maker to check the part page before ordering
#   C111738  TI TPS2553DBVR-1: a published design's part proposal ("TI TPS2553DBVR-1 (LCSC C111738),
#            the latch-off version of the TPS2553, SOT-23-6 (DBV). JLC extended part")
#   C5438410 GCT USB4135-GF-A: a published design's parts table (its MPN, DigiKey, Mouser and LCSC
#            numbers on one row: "USB4135-GF-A | 2073-USB4135-GF-ACT-ND | 640-USB4135-GF-A | C5438410")
#   C2869734 TI LM66100DCKR: two published designs' BOMs ("LM66100DCKR C2869734", and a board's
#            part placement script naming it so)
#   C21190   UNI-ROYAL 0603WAF1001T5E: JLCPCB's part page address, jlcpcb.com/partdetail/
#            21904-0603WAF1001T5E/C21190, in a published design's BOM
#   C23186   UNI-ROYAL 0603WAF5101T5E: JLCPCB's part page address, jlcpcb.com/partdetail/
#            23913-0603WAF5101T5E/C23186, in a published design's BOM (and three other BOMs' CC pull-downs)
#   C19077497 hongjiacheng SMF5.0A: published designs' BOMs and part tables ("SMF5.0A | C19077497", a
#            JLCPCB "Preferred Extended" part, with LCSC's own datasheet file for it,
#            lcsc_datasheet_2312041000_hongjiacheng-SMF5-0A_C19077497.pdf)
# U14's alternative, should C2869734 run short (another design's pre-order check found 9 in stock):
# C2832141, TI LM66100DCKT, the same part on TI's small reel (R: 3000, T: 250), the same SC-70-6
# (DCK) package and footprint (two published designs' BOMs pair LM66100DCKT with C2832141).
# R21 (Yageo RC0603FR-0788K7L, 88.7 kOhm) has no public LCSC record here: any 88.7 kOhm 1 % 0603 does.
LCSC = {"CD74HC4067M96": "C496123", "SN74HC138DR": "C6818", "DRV5055A2QDBZR": "C266131",
        "AO3401A": "C15127", "SN74AHCT1G125DBVR": "C7484", "WS2812B-2020": "C965555",
        "RC0603FR-0710KL": "C98220", "CL10B104KB8NNNC": "C1591", "CL10B103KB8NNNC": "C1589",
        "RC0603FR-07100RL": "C105588", "CL21A106KAYNNNE": "C15850", "TPS22918DBVR": "C131941",
        "CL10B105KA8NNNC": "C29936", "RC0603FR-07330RL": "C105881", "B3F-1000": "C93157",
        "TPS2553DBVR-1": "C111738", "USB4135-GF-A": "C5438410", "LM66100DCKR": "C2869734",
        "0603WAF5101T5E": "C23186", "0603WAF1001T5E": "C21190", "SMF5.0A": "C19077497"}
# JLCPCB's parts library draws some packages turned from KiCad's (IPC-7351) zero: the CPL adds
# this many degrees to KiCad's rotation, by footprint name, first match. The figures are the
# community's tables of checked corrections: matthewlai/JLCKicadTools cpl_rotations_db.csv
# (also in Bouni/kicad-jlcpcb-tools) for SOT-23 (3, 5 and 6 pins) and SOT-363 (SC-70-6) 180 and SOIC 270, and KiBot's
# rotation filter (INTI-CMNB/KiBot, kibot/fil_rot_footprint.py, DEFAULT_ROTATIONS, which extends
# that table from bennymeg/JLC-Plugin-for-KiCad) for "^LED_WS2812B-2020_PLCC4_2.0x2.0mm" 90.
# The 0603 and 0805 passives need none, nor the TVS's SOD-123F: two published designs' checked
# tables hold D_SOD-123(F) at 0 (their notes: pad 1, the cathode, is the band in JLCPCB's preview).
JLCPCB_ROTATION = [(r"^SOT-23", 180), (r"^SOT-363", 180), (r"^SOIC-", 270),
                   (r"^LED_WS2812B-2020_PLCC4_2\.0x2\.0mm", 90)]
KINDS_SOCKETED = schematic.KINDS["esp32"].footprint
BOM_COLUMNS = ["Comment", "Designator", "Footprint", "LCSC Part #"]
CPL_COLUMNS = ["Designator", "Mid X", "Mid Y", "Layer", "Rotation"]


def _strip_dates(path):
    text = path.read_text()
    text = re.sub(r"(?m)^%TF\.CreationDate,.*\*%\n", "", text)
    text = re.sub(r"(?m)^; #@! TF\.CreationDate,.*\n", "", text)
    text = re.sub(r"(?m)^(G04 Created by KiCad .*?) date .*\*$", r"\1*", text)
    text = re.sub(r"(?m)^(; ?DRILL file \{.*?\}) date .*$", r"\1", text)
    path.write_text(text)


PLATE_LAYERS = [("F.Cu", "F_Cu", "top copper: none"), ("B.Cu", "B_Cu", "bottom copper: none"),
                ("Edge.Cuts", "Edge_Cuts", "plate outline")]


def plate_board(pcbnew, lay, name):
    """The floor plate as a 2-layer board with no copper: its outline and its unplated M3
    holes (layout.py), placed in the main board's frame (pcb.py's MARGIN and pcb_box)."""
    mm = pcbnew.FromMM
    _, _, _, top = lay.pcb_box
    left = lay.pcb_box[0]

    def point(x, y):
        return pcbnew.wxPoint(mm(pcb.MARGIN + x - left), mm(pcb.MARGIN + top - y))

    board = pcbnew.BOARD()
    board.SetFileName(str(name))
    board.SetCopperLayerCount(2)
    pcb.outline(pcbnew, board, lay.plate_box, point)
    for i, (x, y) in enumerate(lay.plate_holes(), 1):
        fp = pcbnew.FootprintLoad(str(pcb.LIBS / "MountingHole.pretty"), "MountingHole_3.2mm_M3")
        fp.SetReference("MH%d" % i)
        fp.SetPosition(point(x, y))
        board.Add(fp)
    return board


def gerbers(pcbnew, board, out_dir, layers=LAYERS):
    """Every layer's Gerber and the drill files, in out_dir; returns their paths."""
    ctl = pcbnew.PLOT_CONTROLLER(board)
    opt = ctl.GetPlotOptions()
    opt.SetOutputDirectory(str(out_dir))
    opt.SetPlotFrameRef(False)
    opt.SetAutoScale(False)
    opt.SetScale(1)
    opt.SetMirror(False)
    opt.SetUseGerberAttributes(True)
    opt.SetIncludeGerberNetlistInfo(False)
    opt.SetCreateGerberJobFile(False)
    opt.SetUseGerberProtelExtensions(False)
    opt.SetSubtractMaskFromSilk(True)
    opt.SetUseAuxOrigin(False)
    opt.SetDrillMarksType(pcbnew.PCB_PLOT_PARAMS.NO_DRILL_SHAPE)
    out = []
    stem = Path(board.GetFileName()).stem
    for layer, suffix, what in layers:
        ctl.SetLayer(board.GetLayerID(layer))
        ctl.OpenPlotfile(suffix, pcbnew.PLOT_FORMAT_GERBER, what)
        ctl.PlotLayer()
        ctl.ClosePlot()
        out.append(out_dir / ("%s-%s.gbr" % (stem, suffix)))
    drill = pcbnew.EXCELLON_WRITER(board)
    drill.SetOptions(False, False, pcbnew.wxPoint(0, 0), False)  # no mirror, full header, origin, PTH and NPTH apart
    drill.SetFormat(True)  # millimetres
    drill.CreateDrillandMapFilesSet(str(out_dir), True, False)
    for kind in ("PTH", "NPTH"):
        drl = out_dir / ("%s-%s.drl" % (stem, kind))
        if re.search(r"(?m)^X", drl.read_text()):
            out.append(drl)
        else:
            drl.unlink()  # KiCad writes one for each kind even with no hole of it (the plate's PTH)
    for path in out:
        _strip_dates(path)
    return out


def package(paths, zip_path):
    """The upload: every Gerber and drill file, with fixed dates so the zip changes only with them."""
    with zipfile.ZipFile(zip_path, "w", zipfile.ZIP_DEFLATED) as z:
        for path in sorted(paths):
            info = zipfile.ZipInfo(path.name, date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, path.read_bytes())


def _natural(ref):
    head = re.sub(r"\d+$", "", ref)
    return head, int(ref[len(head):] or 0)


def jlcpcb_rotation(footprint, degrees):
    """KiCad's rotation of a footprint (its name without the library) as JLCPCB's CPL wants it."""
    extra = next((turn for pattern, turn in JLCPCB_ROTATION if re.match(pattern, footprint)), 0)
    return (degrees + extra) % 360


def pads_centre(pcbnew, fp):
    """(x, y) mm: the middle of a footprint's pads, where JLCPCB wants a part's "Mid X/Y". An SMD
    footprint's origin is there already; a through-hole one's is its pin 1 (SW1's 3.9 mm away)."""
    xs, ys = zip(*(pcbnew.ToMM(pad.GetPosition()) for pad in fp.Pads()))
    return (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2


def assembly(pcbnew, board, parts):
    """(bom.csv text, cpl.csv text) in JLCPCB's columns, for every part of the netlist."""
    rows = {}
    cpl = []
    for fp in board.GetFootprints():
        ref = fp.GetReference()
        if ref not in parts:
            continue  # mounting holes
        info = parts[ref]
        mpn = info.get("MPN", "")
        footprint = info["footprint"].split(":")[1]
        comment = info["value"]
        if info["footprint"] == KINDS_SOCKETED:  # the fab solders the devkit's sockets, not the devkit
            comment = "2x %s (%s)" % (schematic.SOCKET["mpn"], schematic.SOCKET["part"])
        rows.setdefault((comment, footprint, LCSC.get(mpn, "")), []).append(ref)
        x, y = pads_centre(pcbnew, fp)
        # KiCad's placement frame, the Gerbers' own: y up
        cpl.append([ref, "%.3fmm" % x, "%.3fmm" % -y, "Top" if fp.GetLayer() == pcbnew.F_Cu else "Bottom",
                    "%g" % jlcpcb_rotation(footprint, fp.GetOrientationDegrees())])
    bom = io.StringIO()
    w = csv.writer(bom, lineterminator="\n")
    w.writerow(BOM_COLUMNS)
    for (value, footprint, lcsc), refs in sorted(rows.items(), key=lambda r: _natural(min(r[1], key=_natural))):
        w.writerow([value, ",".join(sorted(refs, key=_natural)), footprint, lcsc])
    place = io.StringIO()
    w = csv.writer(place, lineterminator="\n")
    w.writerow(CPL_COLUMNS)
    w.writerows(sorted(cpl, key=lambda r: _natural(r[0])))
    return bom.getvalue(), place.getvalue()


def main(argv):
    import pcbnew

    out = Path(argv[0]).resolve() if argv else OUT
    out.mkdir(exist_ok=True)
    for old in out.glob("doce-*"):
        old.unlink()
    board = pcbnew.LoadBoard(str(BOARD_FILE))
    files = gerbers(pcbnew, board, out)
    package(files, out / "doce-gerbers.zip")
    parts, _ = pcb.read_netlist()
    bom, cpl = assembly(pcbnew, board, parts)
    (out / "doce-bom-jlcpcb.csv").write_text(bom)
    (out / "doce-cpl-jlcpcb.csv").write_text(cpl)
    print("wrote %d Gerber and drill files, doce-gerbers.zip, the BOM and the CPL in %s" % (len(files), out))
    plate_dir = out / PLATE
    plate_dir.mkdir(exist_ok=True)
    for old in plate_dir.glob("plate-*"):
        old.unlink()
    plate = plate_board(pcbnew, layout_module.load(), plate_dir / "plate.kicad_pcb")  # named, never saved
    files = gerbers(pcbnew, plate, plate_dir, PLATE_LAYERS)
    package(files, plate_dir / "plate-gerbers.zip")
    print("wrote the floor plate's %d Gerber and drill files and plate-gerbers.zip in %s" % (len(files), plate_dir))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
