# Session 38: shared-memory write wavefronts of prefetch = async's neighbour copies into sF (a bank
# count: 32 banks of 4 bytes, 8-byte reals, each half-warp's most-loaded bank), today's order (A)
# against session38-face-aligned-gather.diff (C), for the double order-2 winner's block (8 elements,
# 80 threads, LDF 25 as generated), every face interior. See gather_lines.cpp for the global side.
NE, NFP, NF, C, LDF, T = 8, 6, 4, 6, 25, 80
NFN = NF * NFP
def wavefronts(addrs, bytes_=8):
    # addrs: list of (lane, element index into sF) for active lanes; 8-byte words -> 2 banks; per half-warp
    total = 0
    for half in (0, 1):
        words = {}
        for lane, a in addrs:
            if lane // 16 != half: continue
            for h in range(bytes_ // 4):
                w = a * (bytes_ // 4) + h
                words.setdefault(w % 32, set()).add(w)
        if words: total += max(len(v) for v in words.values())
    return total
# A: slots s = tid + j*T; warp covers 32 slots; instruction per component c
A = 0
for j0 in range(0, NE * NFN, T):
    for w0 in range(j0, min(j0 + T, NE * NFN), 32):
        for c in range(C):
            addrs = [(s - w0, ((s // NFN) * C + c) * LDF + s % NFN) for s in range(w0, min(w0 + 32, j0 + T, NE * NFN))]
            A += wavefronts(addrs)
# C: FPW faces per warp item, copies t = (face, c, node)
FPW = 32 // NFP
Cw = 0
for g0 in range(0, NE * NF, FPW):
    for t0 in range(0, FPW * NFP * C, 32):
        addrs = []
        for t in range(t0, min(t0 + 32, FPW * NFP * C)):
            g = g0 + t // (C * NFP)
            if g >= NE * NF: continue
            es, f, c, node = g // NF, g % NF, (t // NFP) % C, t % NFP
            addrs.append((t - t0, (es * C + c) * LDF + f * NFP + node))
        Cw += wavefronts(addrs)
print(f"sF write wavefronts per element (all slots interior): A {A / NE:.1f}, C {Cw / NE:.1f}")
