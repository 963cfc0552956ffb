#!/usr/bin/env python3
"""Import circles between the top-level modules of a crate (issue 46).

An edge A -> B is any mention of `crate::B` (or `B` inside `use crate::{...}`)
in a file under module A, doc comments included; unit tests are left out (a
file's `#[cfg(test)]` tail, and files named tests.rs or *_tests.rs), since they are not part
of what the module needs. Prints each circle; exits 1 if there is one.
Usage: scripts/modgraph.py crates/<crate>/src [-v: every edge]"""
import os, re, sys, collections
root = sys.argv[1]  # crate src dir
mods = set()
for f in os.listdir(root):
    if f.endswith('.rs') and f not in ('lib.rs','main.rs'): mods.add(f[:-3])
    elif os.path.isdir(os.path.join(root,f)): mods.add(f)
edges = collections.defaultdict(set)
pat = re.compile(r'crate::(\w+)')
usepat = re.compile(r'use crate::\{([^;]*)\};', re.S)
for dp, dn, fn in os.walk(root):
    for f in fn:
        if not f.endswith('.rs'): continue
        p = os.path.join(dp,f); rel = os.path.relpath(p, root)
        top = rel.split(os.sep)[0]; top = top[:-3] if top.endswith('.rs') else top
        if top in ('lib','main'): continue
        if f == 'tests.rs' or f.endswith('_tests.rs'): continue
        src = open(p).read()
        if '#[cfg(test)]' in src: src = src[:src.index('#[cfg(test)]')]
        names = set(pat.findall(src))
        for m in usepat.findall(src):
            for part in re.split(r',', re.sub(r'\{[^}]*\}', '', m)):
                part = part.strip().split('::')[0].strip()
                if part: names.add(part)
        for n in names:
            if n in mods and n != top: edges[top].add(n)
# SCCs (Tarjan)
idx = {}; low = {}; st = []; on = set(); sccs = []; c = [0]
sys.setrecursionlimit(10000)
def sc(v):
    idx[v] = low[v] = c[0]; c[0] += 1; st.append(v); on.add(v)
    for w in edges[v]:
        if w not in idx: sc(w); low[v] = min(low[v], low[w])
        elif w in on: low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = []
        while True:
            w = st.pop(); on.discard(w); comp.append(w)
            if w == v: break
        sccs.append(comp)
for m in sorted(mods):
    if m not in idx: sc(m)
cyc = [s for s in sccs if len(s) > 1]
if '-v' in sys.argv:
    for a in sorted(edges): print(a, '->', ' '.join(sorted(edges[a])))
for s in cyc: print('CYCLE', len(s), ' '.join(sorted(s)))
print('cycles:', len(cyc))
sys.exit(1 if cyc else 0)
