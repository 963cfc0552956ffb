#!/usr/bin/env bash
# Installs what the browser tests (browser/, crates/baccarat/tests/cli/browser.rs) need:
# Debian's headless Chromium, a Chinese font, and the npm package playwright-core (which drives it;
# Playwright's own browser downloads are never used). Idempotent; silent when
# everything is already present.
set -euo pipefail
cd "$(dirname "$0")/.."

installed=()

# Debian's packages: Chromium, and a font with Chinese characters (the
# player's page in Chinese: without one the screenshots show empty boxes).
packages=()
[ -x /usr/bin/chromium ] || packages+=(chromium)
dpkg -s fonts-wqy-zenhei >/dev/null 2>&1 || packages+=(fonts-wqy-zenhei)
if [ "${#packages[@]}" -gt 0 ]; then
    # sudo only when not root; env passes DEBIAN_FRONTEND through sudo.
    if [ "$(id -u)" -eq 0 ]; then as_root=(env); else as_root=(sudo env); fi
    as_root+=(DEBIAN_FRONTEND=noninteractive)
    log=$(mktemp)
    trap 'rm -f "$log"' EXIT
    # Quiet on success; apt's whole output on failure.
    if ! { "${as_root[@]}" apt-get update -q && "${as_root[@]}" apt-get install -y -q --no-install-recommends "${packages[@]}"; } >"$log" 2>&1; then
        cat "$log" >&2
        echo "browser-deps: could not install ${packages[*]} with apt-get" >&2
        exit 1
    fi
    for p in "${packages[@]}"; do
        if [ "$p" = chromium ]; then
            installed+=("chromium ($(/usr/bin/chromium --version 2>/dev/null || echo 'version unknown'))")
        else
            installed+=("$p")
        fi
    done
fi

if [ ! -d browser/node_modules/playwright-core ] || [ ! -d browser/node_modules/axe-core ]; then
    if ! npm ci --prefix browser --no-audit --no-fund --loglevel=error >/dev/null; then
        echo "browser-deps: npm ci --prefix browser failed" >&2
        exit 1
    fi
    installed+=("playwright-core $(node -p "require('./browser/node_modules/playwright-core/package.json').version")")
fi

if [ "${#installed[@]}" -gt 0 ]; then
    line="${installed[0]}"
    for item in "${installed[@]:1}"; do line+=", $item"; done
    echo "browser-deps: installed $line"
fi
