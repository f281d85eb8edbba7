"""A grid router for the DOCE PCB, in plain Python (KiCad's own Python runs it, from pcb.py).

Tracks run on a 0.5 mm grid on the two outer layers; the inner layers are planes (GND, and
the 5 V / 3.3 V supplies), which a pad reaches through a via of its own. The search is A* on
the grid (Lee's maze router with a heuristic), and conflicts between nets are settled by
negotiated congestion (McMurchie and Ebeling's PathFinder): every net is routed as if alone,
a grid point two nets want grows dearer each round, and the nets that share one are routed
again until none does.

Clearances hold by construction, for the rules pcb.py gives KiCad (0.2 mm tracks, 0.15 mm
clearance, 0.55 mm vias): two signal tracks may use neighbouring grid points (0.3 mm apart),
a via claims its grid point and the four next to it, a power track the eight around it, and
no two vias are closer than 1.4 mm, so a row of vias never cuts a plane. Pads, holes and the
board edge are measured exactly against every grid point and every grid step beside them.
Only orthogonal steps: no 45-degree corners, so no diagonal can cross another.

The router knows nothing of KiCad: pads come in as Pad values (mm, KiCad's frame, y down),
and routes come out as segments and vias.
"""

import heapq
import math

GRID = 0.5
F, B = 0, 1
FREE, BLOCKED = -1, -2
EPS = 0.01  # mm kept on top of every clearance: KiCad measures in nanometres


class Rules:
    def __init__(self, clearance=0.15, track=0.2, power_track=0.5, via=0.55, via_drill=0.3, edge=0.5,
                 hole=0.25, via_spacing=1.4, via_pad=0.2, supply_track=None):
        self.clearance, self.track, self.power_track = clearance, track, power_track
        # the widest a track claiming the eight grid points around it may be: a signal track on the
        # diagonal one is 0.707 mm from its centre line (0.9 mm with 0.15 mm clearance and 0.2 mm tracks)
        self.supply_track = supply_track or power_track
        self.via_pad = via_pad  # a via's copper from any pad's, its own net's too: solder wicks down a via
        self.via, self.via_drill, self.edge, self.hole, self.via_spacing = via, via_drill, edge, hole, via_spacing


class Pad:
    """One pad: its net, the outer layers it is on ({F} or {F, B}), its copper as a box
    (x0, y0, x1, y1) with its corners rounded by `corner` (0 for a rectangle, half the short
    side for a circle or an oval), and its drill."""

    def __init__(self, ref, number, net, layers, box, corner=0.0, drill=0.0):
        self.ref, self.number, self.net, self.layers = ref, number, net, frozenset(layers)
        self.box, self.corner, self.drill = box, corner, drill
        self.centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)

    def distance(self, x, y):
        """From a point to the copper (0 inside), exactly for every shape KiCad's library uses."""
        x0, y0, x1, y1 = self.box
        r = self.corner
        return max(0.0, math.hypot(max(0.0, x0 + r - x, x - x1 + r), max(0.0, y0 + r - y, y - y1 + r)) - r)

    def holds(self, x, y, margin=0.02):
        """Is the point inside the copper, margin from its edge? (a track ending there is on it)"""
        x0, y0, x1, y1 = self.box
        r = max(self.corner, margin)
        return math.hypot(max(0.0, x0 + r - x, x - x1 + r), max(0.0, y0 + r - y, y - y1 + r)) <= r - margin

    def segment_distance(self, ax, ay, bx, by):
        """From an axis-parallel segment to the copper's box (its box: rounded corners only make it further)."""
        x0, y0, x1, y1 = self.box
        sx0, sx1, sy0, sy1 = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
        return math.hypot(max(0.0, x0 - sx1, sx0 - x1), max(0.0, y0 - sy1, sy0 - y1))

    def __repr__(self):
        return "%s.%s" % (self.ref, self.number)


class Task:
    """What one search connects: the pads of a net (a tree), or one pad to its plane (an escape).
    `power`: its track claims the grid points around it (a power or supply track); `kind`: "t"
    signal, "p" power, "s" supply (the widest)."""

    def __init__(self, net, pads, plane=None, power=False, kind=None):
        self.net, self.pads, self.plane, self.power = net, pads, plane, power
        self.kind = kind or ("p" if power else "t")
        self.paths = []  # lists of states
        self.vias = []  # cells
        self.claims = ()
        self.failed = False

    def __repr__(self):
        return "%s%s" % (self.net, " %r" % self.pads[0] if self.plane else "")


class Router:
    def __init__(self, outline, pads, holes, rules, planes, power_nets=(), log=print, keepouts=(), supply_nets=()):
        """outline: (x0, y0, x1, y1) mm; holes: [(x, y, diameter)] without copper;
        planes: {net: [polygon, ...]} (a pad of such a net reaches its plane by a via inside one
        of its polygons; a through-hole pad inside one needs nothing); power_nets: nets routed
        with power_track, supply_nets with supply_track; keepouts: [(x0, y0, x1, y1)] where no track
        or via may reach."""
        self.rules, self.log = rules, log
        self.outline = outline
        self.keepouts = list(keepouts)
        bx0, by0, bx1, by1 = outline
        self.i0, self.j0 = int(math.floor(bx0 / GRID)) - 2, int(math.floor(by0 / GRID)) - 2
        self.W = int(math.ceil(bx1 / GRID)) + 3 - self.i0
        self.H = int(math.ceil(by1 / GRID)) + 3 - self.j0
        self.N = self.W * self.H
        self.pads, self.holes, self.planes = pads, holes, planes
        self.power_nets = set(power_nets)
        self.supply_nets = set(supply_nets)
        self.sources = set()  # refs whose pads a net's tree starts from (a supply's switch)
        nets = sorted({p.net for p in pads if p.net})
        self.net_id = {n: k for k, n in enumerate(nets)}
        self.nets = nets
        self._static()

    # --- the grid ----------------------------------------------------------------------------
    def xy(self, c):
        j, i = divmod(c, self.W)
        return (i + self.i0) * GRID, (j + self.j0) * GRID

    def cell(self, x, y):
        return (int(round(y / GRID)) - self.j0) * self.W + int(round(x / GRID)) - self.i0

    def _cells_near(self, box, reach):
        x0, y0, x1, y1 = box
        ia = max(0, int(math.floor((x0 - reach) / GRID)) - self.i0)
        ib = min(self.W - 1, int(math.ceil((x1 + reach) / GRID)) - self.i0)
        ja = max(0, int(math.floor((y0 - reach) / GRID)) - self.j0)
        jb = min(self.H - 1, int(math.ceil((y1 + reach) / GRID)) - self.j0)
        for j in range(ja, jb + 1):
            for i in range(ia, ib + 1):
                yield j * self.W + i

    @staticmethod
    def _mark(arr, c, owner):
        v = arr[c]
        if v == FREE:
            arr[c] = owner
        elif v != owner:
            arr[c] = BLOCKED

    def _static(self):
        """Where each kind of copper may go, for which net: FREE, BLOCKED or a net's id. Per
        outer layer: a signal track's grid points and steps (east, north), a power track's,
        and (both layers at once) a via's centre."""
        r, N, W = self.rules, self.N, self.W
        half = {"t": r.track / 2, "p": r.power_track / 2, "s": r.supply_track / 2}
        self.point = {k: [[FREE] * N for _ in (F, B)] for k in half}
        self.step_e = {k: [[FREE] * N for _ in (F, B)] for k in half}
        self.step_n = {k: [[FREE] * N for _ in (F, B)] for k in half}
        self.via_ok = [FREE] * N
        self.access = {}  # net id -> {state: pad}
        bx0, by0, bx1, by1 = self.outline
        for c in range(N):
            x, y = self.xy(c)
            edge = min(x - bx0, bx1 - x, y - by0, by1 - y)
            for k, h in half.items():
                if edge < r.edge + h + EPS:
                    for L in (F, B):
                        self.point[k][L][c] = BLOCKED
            if edge < r.edge + r.via / 2 + EPS:
                self.via_ok[c] = BLOCKED
        for k in half:  # the edges are straight: a step is as close to them as its nearer end
            for L in (F, B):
                point, east, north = self.point[k][L], self.step_e[k][L], self.step_n[k][L]
                for c in range(N - W - 1):
                    if point[c] == BLOCKED or point[c + 1] == BLOCKED:
                        east[c] = BLOCKED
                    if point[c] == BLOCKED or point[c + W] == BLOCKED:
                        north[c] = BLOCKED
                for c in range(N - W - 1, N):
                    east[c] = north[c] = BLOCKED
        for hx, hy, d in self.holes:
            box = (hx - d / 2, hy - d / 2, hx + d / 2, hy + d / 2)
            for k, h in half.items():
                reach = d / 2 + r.hole + h + EPS
                for c in self._cells_near(box, reach + GRID):
                    x, y = self.xy(c)
                    near = math.hypot(x - hx, y - hy) < reach
                    east = math.hypot(max(0.0, x - hx, hx - x - GRID), y - hy) < reach
                    north = math.hypot(x - hx, max(0.0, y - hy, hy - y - GRID)) < reach
                    for L in (F, B):
                        if near:
                            self.point[k][L][c] = BLOCKED
                        if east:
                            self.step_e[k][L][c] = BLOCKED
                        if north:
                            self.step_n[k][L][c] = BLOCKED
            for c in self._cells_near(box, d / 2 + r.hole + r.via / 2 + EPS):
                x, y = self.xy(c)
                if math.hypot(x - hx, y - hy) < d / 2 + r.hole + r.via / 2 + EPS:
                    self.via_ok[c] = BLOCKED
        for kx0, ky0, kx1, ky1 in self.keepouts:  # no copper reaches into the box
            for k, h in half.items():
                reach = h + EPS
                for c in self._cells_near((kx0, ky0, kx1, ky1), reach + GRID):
                    x, y = self.xy(c)
                    if kx0 - reach < x < kx1 + reach and ky0 - reach < y < ky1 + reach:
                        for L in (F, B):
                            self.point[k][L][c] = BLOCKED
                            self.step_e[k][L][c] = self.step_n[k][L][c] = BLOCKED
                            self.step_e[k][L][c - 1] = self.step_n[k][L][c - W] = BLOCKED
            reach = r.via / 2 + EPS
            for c in self._cells_near((kx0, ky0, kx1, ky1), reach + GRID):
                x, y = self.xy(c)
                if kx0 - reach < x < kx1 + reach and ky0 - reach < y < ky1 + reach:
                    self.via_ok[c] = BLOCKED
        for pad in self.pads:
            owner = self.net_id[pad.net] if pad.net else BLOCKED
            for k, h in half.items():
                reach = r.clearance + h + EPS
                for c in self._cells_near(pad.box, reach + GRID):
                    x, y = self.xy(c)
                    near = pad.distance(x, y) < reach
                    east = pad.segment_distance(x, y, x + GRID, y) < reach
                    north = pad.segment_distance(x, y, x, y + GRID) < reach
                    for L in pad.layers:
                        if near:
                            self._mark(self.point[k][L], c, owner)
                        if east:
                            self._mark(self.step_e[k][L], c, owner)
                        if north:
                            self._mark(self.step_n[k][L], c, owner)
            reach = max(r.clearance, r.via_pad) + r.via / 2 + EPS
            for c in self._cells_near(pad.box, reach):
                x, y = self.xy(c)
                d = pad.distance(x, y)
                if d < r.via / 2 + r.via_pad + EPS:  # no via at or by a pad, not even its own net's
                    self.via_ok[c] = BLOCKED
                elif d < reach:
                    self._mark(self.via_ok, c, owner)
            if pad.drill:  # hole to hole
                px, py = pad.centre
                reach = pad.drill / 2 + r.hole + r.via_drill / 2 + EPS
                for c in self._cells_near(pad.box, reach):
                    x, y = self.xy(c)
                    if math.hypot(x - px, y - py) < reach:
                        self.via_ok[c] = BLOCKED
            if pad.net:
                acc = self.access.setdefault(owner, {})
                for c in self._cells_near(pad.box, 0):
                    x, y = self.xy(c)
                    if pad.holds(x, y):
                        for L in pad.layers:
                            acc[L * N + c] = pad
        # the via disk: grid offsets closer than via_spacing
        reach = r.via_spacing / GRID
        n = int(math.ceil(reach))
        self.via_disk = [dj * W + di for dj in range(-n, n + 1) for di in range(-n, n + 1)
                         if dj * dj + di * di < reach * reach - 1e-9]
        self.plus = [0, 1, -1, W, -W]
        self.square = [dj * W + di for dj in (-1, 0, 1) for di in (-1, 0, 1)]
        self.in_plane = {}
        for net, polys in self.planes.items():
            inside = bytearray(N)
            for c in range(N):
                x, y = self.xy(c)
                if any(_inside(poly, x, y, 1.0) for poly in polys):
                    inside[c] = 1
            self.in_plane[self.net_id[net]] = inside

    # --- the tasks ---------------------------------------------------------------------------
    def tasks(self):
        by_net = {}
        for pad in self.pads:
            if pad.net:
                by_net.setdefault(pad.net, []).append(pad)
        out = []
        for net in self.nets:
            pads = by_net[net]
            k = self.net_id[net]
            if net in self.planes:
                for pad in pads:
                    if pad.drill and self.in_plane[k][self.cell(*pad.centre)]:
                        continue  # a through-hole pad meets the plane itself
                    power = net in self.power_nets or (pad.ref, net) in self.power_pads
                    out.append(Task(k, [pad], plane=net, power=power))
            elif len(pads) > 1:
                supply = net in self.supply_nets
                out.append(Task(k, pads, power=supply or net in self.power_nets, kind="s" if supply else None))
        return out

    power_pads = ()  # (ref, net): the escapes that carry a supply's current

    # --- congestion bookkeeping ----------------------------------------------------------------
    def _reset(self):
        self.occ = [0] * (2 * self.N)  # how many nets claim each state
        self.hist = [0.0] * (2 * self.N)
        self.netcnt = {}  # net -> {state: tasks of that net claiming it}
        self.vex = [0] * self.N  # how many vias' spacing disks cover each cell

    def _claims(self, task):
        N = self.N
        out = set()
        area = self.square if task.power else (0,)
        for path in task.paths:
            for s in path:
                L, c = divmod(s, N)
                base = L * N
                for d in area:
                    out.add(base + c + d)
        for c in task.vias:
            for d in self.plus:
                out.add(c + d)
                out.add(N + c + d)
        return out

    def _add(self, task):
        task.claims = self._claims(task)
        cnt = self.netcnt.setdefault(task.net, {})
        for s in task.claims:
            n = cnt.get(s, 0)
            if n == 0:
                self.occ[s] += 1
            cnt[s] = n + 1
        for c in task.vias:
            for d in self.via_disk:
                self.vex[c + d] += 1

    def _remove(self, task):
        cnt = self.netcnt[task.net]
        for s in task.claims:
            n = cnt[s] - 1
            if n == 0:
                self.occ[s] -= 1
                del cnt[s]
            else:
                cnt[s] = n
        for c in task.vias:
            for d in self.via_disk:
                self.vex[c + d] -= 1
        task.claims = ()

    def _conflicted(self, task):
        cnt = self.netcnt[task.net]
        for s in task.claims:
            if self.occ[s] - (1 if s in cnt else 0) > 0:
                return True
        own = {}
        for c in task.vias:
            for d in self.via_disk:
                own[c + d] = own.get(c + d, 0) + 1
        return any(self.vex[c] - own[c] > 0 for c in task.vias)

    # --- the search ----------------------------------------------------------------------------
    def _search(self, task, sources, goal, box, pres, limit=400000):
        """Cheapest path from any source state to a goal state (goal: {state: pad}) or, for an
        escape (goal None), to a grid point where a via may reach the task's plane."""
        N, W = self.N, self.W
        kind = task.kind
        point, step_e, step_n = self.point[kind], self.step_e[kind], self.step_n[kind]
        via_ok, vex, occ, hist = self.via_ok, self.vex, self.occ, self.hist
        cnt = self.netcnt.setdefault(task.net, {})
        net = task.net
        area = self.square if task.power else None
        plus = self.plus
        plane = self.in_plane.get(net) if goal is None else None
        own_vias = self._own_vias(task)
        # step costs: B.Cu runs east-west, F.Cu north-south
        cost_h, cost_v = (1.5, 1.0), (1.0, 1.5)
        VIA = 8.0
        g = {}
        parent = {}
        heap = []
        for s, g0 in sources.items():
            g[s] = g0
            parent[s] = -1
            heapq.heappush(heap, (g0 + self._h(s, box), g0, s))
        done = set()
        expanded = 0
        while heap:
            f, gs, s = heapq.heappop(heap)
            if s < 0:  # an escape reached its via
                c = -s - 1
                return self._trace(parent, c), c
            if s in done:
                continue
            done.add(s)
            expanded += 1
            if expanded > limit:
                return None, None
            if goal is not None and s in goal and s not in sources:
                return self._trace(parent, s), None
            L, c = divmod(s, N)
            if plane is not None and plane[c] and (via_ok[c] == FREE or via_ok[c] == net) \
                    and c not in own_vias:
                p = 1.0 + hist[c] + hist[N + c]
                o = 0
                for d in plus:
                    o += occ[c + d] - (1 if (c + d) in cnt else 0)
                    o += occ[N + c + d] - (1 if (N + c + d) in cnt else 0)
                o += vex[c]
                gv = gs + VIA * p * (1 + pres * o)
                key = -c - 1
                if gv < g.get(key, 1e18):
                    g[key] = gv
                    parent[key] = s
                    heapq.heappush(heap, (gv, gv, key))
            base = L * N
            for dc, edge, cost in ((1, step_e[L][c], cost_h[L]), (-1, step_e[L][c - 1], cost_h[L]),
                                   (W, step_n[L][c], cost_v[L]), (-W, step_n[L][c - W], cost_v[L])):
                if edge != FREE and edge != net:
                    continue
                n = c + dc
                pn = point[L][n]
                if pn != FREE and pn != net:
                    continue
                t = base + n
                if t in done:
                    continue
                if area is None:
                    o = occ[t] - (1 if t in cnt else 0)
                else:
                    o = 0
                    for d in area:
                        o += occ[t + d] - (1 if (t + d) in cnt else 0)
                gn = gs + cost * (1.0 + hist[t]) * (1 + pres * o)
                if gn < g.get(t, 1e18):
                    g[t] = gn
                    parent[t] = s
                    heapq.heappush(heap, (gn + self._h(t, box), gn, t))
            if plane is None and (via_ok[c] == FREE or via_ok[c] == net) and c not in own_vias:
                t = (1 - L) * N + c
                if t in done:
                    continue
                pn = point[1 - L][c]
                if pn != FREE and pn != net:
                    continue
                p = 1.0 + hist[c] + hist[N + c]
                o = vex[c]
                for d in plus:
                    o += occ[c + d] - (1 if (c + d) in cnt else 0)
                    o += occ[N + c + d] - (1 if (N + c + d) in cnt else 0)
                gn = gs + VIA * p * (1 + pres * o)
                if gn < g.get(t, 1e18):
                    g[t] = gn
                    parent[t] = s
                    heapq.heappush(heap, (gn + self._h(t, box), gn, t))
        return None, None

    def _own_vias(self, task):
        """Where this task's own vias keep its next via away (hole to hole); other tasks' vias
        are in the spacing count instead, which the task is out of while it is routed."""
        return {c + d for c in task.vias for d in self.via_disk}

    def _h(self, s, box):
        if not box:
            return 0.0
        c = s % self.N
        j, i = divmod(c, self.W)
        bi0, bj0, bi1, bj1 = box
        return max(0, bi0 - i, i - bi1) + max(0, bj0 - j, j - bj1)

    @staticmethod
    def _trace(parent, s):
        path = []
        while s != -1:
            path.append(s)
            s = parent[s]
        return path[::-1]

    def _box(self, pad):
        x0, y0, x1, y1 = pad.box
        return (int(math.floor(x0 / GRID)) - self.i0, int(math.floor(y0 / GRID)) - self.j0,
                int(math.ceil(x1 / GRID)) - self.i0, int(math.ceil(y1 / GRID)) - self.j0)

    def _route(self, task, pres):
        task.paths, task.vias, task.failed = [], [], False
        N = self.N
        acc = self.access.get(task.net, {})
        pad_states = {}
        for s, pad in acc.items():
            pad_states.setdefault(pad, []).append(s)
        if task.plane:
            pad = task.pads[0]
            sources = {s: 0.0 for s in pad_states.get(pad, [])}
            if not sources:
                task.failed = True
                return
            path, via = self._search(task, sources, None, None, pres, limit=20000)
            if path is None:
                task.failed = True
                return
            task.paths.append(path)
            task.vias.append(via)
            return
        pads = [p for p in task.pads if pad_states.get(p)]
        if len(pads) < len(task.pads):
            task.failed = True
        pads.sort(key=lambda p: p.ref not in self.sources)  # a supply's tree grows from its source
        tree = {s: 0.0 for s in pad_states[pads[0]]}
        left = pads[1:]
        while left:
            # the pad nearest the tree next (Prim's order)
            tree_xy = [self.xy(s % N) for s in list(tree)[::7]] or [self.xy(next(iter(tree)) % N)]
            left.sort(key=lambda p: min(abs(p.centre[0] - x) + abs(p.centre[1] - y) for x, y in tree_xy))
            pad = left.pop(0)
            if any(s in tree for s in pad_states[pad]):
                continue  # the tree already runs over it
            goal = {s: pad for s in pad_states[pad]}
            path, _ = self._search(task, tree, goal, self._box(pad), pres)
            if path is None:
                task.failed = True
                continue
            task.paths.append(path)
            for a, b in zip(path, path[1:]):
                if a % N == b % N:
                    task.vias.append(a % N)
            for s in path:
                tree[s] = 0.0
            for s in pad_states[pad]:
                tree[s] = 0.0

    def run(self, iterations=60):
        """Route every task, again and again where nets conflict; the tasks, with their paths."""
        self._reset()
        tasks = self.tasks()
        pres = 2.0
        todo = tasks
        for it in range(1, iterations + 1):
            for task in todo:
                if task.claims:
                    self._remove(task)
                self._route(task, pres)
                self._add(task)
            bad = [t for t in tasks if self._conflicted(t)]
            failed = [t for t in tasks if t.failed]
            self.log("round %d: %d tasks routed, %d in conflict, %d failed" % (it, len(todo), len(bad), len(failed)))
            if not bad:
                break
            hot = set()
            for t in bad:
                for s in t.claims:
                    if self.occ[s] > 1:
                        self.hist[s] += 0.5
                        hot.add(s % self.N)
                for c in t.vias:
                    hot.add(c)
            # the tasks beside a conflict are routed again too, so they can make room for it
            near = {c + dj * self.W + di for c in hot for dj in range(-6, 7) for di in range(-6, 7)}
            again = set(bad)
            for t in tasks:
                if t not in again and any(s % self.N in near for s in t.claims):
                    again.add(t)
            pres *= 1.6
            todo = [t for t in tasks if t in again]
            todo = todo[it % len(todo):] + todo[:it % len(todo)]  # a different task goes first each round
        self.result = tasks
        return tasks

    def unrouted(self):
        """The tasks the last run left unconnected or sharing copper with another net."""
        return [t for t in self.result if t.failed or self._conflicted(t)]

    # --- the result ----------------------------------------------------------------------------
    def copper(self):
        """[(net, layer, (x0, y0), (x1, y1), width)], [(net, (x, y))]: straight runs and vias."""
        N = self.N
        segs, vias = [], []
        for task in self.result:
            width = {"t": self.rules.track, "p": self.rules.power_track, "s": self.rules.supply_track}[task.kind]
            name = self.nets[task.net]
            for path in task.paths:
                runs = [[path[0]]]
                for s in path[1:]:
                    if s // N == runs[-1][-1] // N:
                        runs[-1].append(s)
                    else:
                        runs.append([s])
                for run in runs:
                    cells = [s % N for s in run]
                    corners = [cells[0]] + [b for a, b, c in zip(cells, cells[1:], cells[2:]) if b - a != c - b]
                    corners.append(cells[-1])
                    for a, b in zip(corners, corners[1:]):
                        if a != b:
                            segs.append((name, run[0] // N, self.xy(a), self.xy(b), width))
            for c in task.vias:
                vias.append((name, self.xy(c)))
        return segs, sorted(set(vias))


def _inside(poly, x, y, margin):
    """Is (x, y) inside the polygon, at least margin from its edges?"""
    inside = False
    n = len(poly)
    for k in range(n):
        (ax, ay), (bx, by) = poly[k], poly[(k + 1) % n]
        if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
            inside = not inside
        # distance to the edge
        dx, dy = bx - ax, by - ay
        t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy or 1)))
        if math.hypot(x - ax - t * dx, y - ay - t * dy) < margin:
            return False
    return inside
