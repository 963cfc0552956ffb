#!/usr/bin/env python3
"""Functions longer than N lines (default 70) under the given src dirs; skips #[cfg(test)] modules and tests.rs files."""
import os, re, sys
N = 70
dirs = [a for a in sys.argv[1:] if not a.startswith('-')]
fnre = re.compile(r'^(\s*)(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?fn\s+(\w+)')
out = []
for d in dirs:
    for dp, dn, fn in os.walk(d):
        for f in fn:
            if not f.endswith('.rs') or f.endswith('tests.rs'): continue
            p = os.path.join(dp, f); lines = open(p).read().split('\n')
            i = 0; skip_depth = None; depth = 0
            while i < len(lines):
                l = lines[i]
                if '#[cfg(test)]' in l:
                    break  # rest of file assumed tests
                m = fnre.match(l)
                if m:
                    # find opening brace and matching close
                    j = i; d0 = 0; started = False
                    while j < len(lines):
                        s = re.sub(r'"(\\.|[^"\\])*"', '""', lines[j]); s = re.sub(r"'(\\.|[^'\\])'", "''", s); s = s.split('//')[0]
                        for ch in s:
                            if ch == '{': d0 += 1; started = True
                            elif ch == '}': d0 -= 1
                        if started and d0 == 0: break
                        if not started and s.rstrip().endswith(';'): break
                        j += 1
                    n = j - i + 1
                    if started and n > N:
                        out.append((n, p, i + 1, m.group(7)))
                i += 1
for n, p, ln, name in sorted(out, reverse=True):
    print(f"{n:4} {p}:{ln} {name}")
print(len(out), "functions over", N, file=sys.stderr)
