#!/usr/bin/env bash
# The Debian package of the table server, built from this workspace with
# dpkg-deb alone (issue 48; docs/install.md): nothing to install beyond
# dpkg, which every Debian and Ubuntu has.
#
#   scripts/package-deb.sh [--binary PATH] [--out DIR] [--compress xz|gzip|zstd|none]
#
# Without --binary, `cargo build --release --locked -p baccarat` first.
# Writes DIR/baccarat_VERSION_ARCH.deb (DIR: target/debian) and prints its
# path. It holds:
#   /usr/bin/baccarat                        the binary (debug info stripped)
#   /lib/systemd/system/baccarat.service     the hardened unit (packaging/)
#   /usr/lib/sysusers.d/baccarat.conf        the user `baccarat`
#   /etc/baccarat/config.toml                the production settings (a conffile)
#   /usr/share/doc/baccarat/                 copyright, changelog.gz, the manual's install and operating chapters
#   /usr/share/lintian/overrides/baccarat    what lintian says that is meant, each with its reason
# and the maintainer scripts in packaging/debian/. The version is the
# workspace's (Cargo.toml), and the binary must say the same; Depends is
# computed by dpkg-shlibdeps, else from the binary's glibc symbol versions.
# SOURCE_DATE_EPOCH (default: the commit's time) fixes the build date and
# the archive's times, so that the same commit gives the same package.
set -euo pipefail
cd "$(dirname "$0")/.."
umask 022

die() { echo "package-deb: $*" >&2; exit 2; }

# The shared libraries' packages the binary needs, as Depends: by
# dpkg-shlibdeps (in a scratch directory: it wants a debian/control), else
# libc6 at the highest glibc symbol version the binary asks for.
shlib_depends() {
	local bin="$1" work glibc
	if command -v dpkg-shlibdeps >/dev/null; then
		work="$(mktemp -d)"
		mkdir "$work/debian"
		printf 'Source: baccarat\n\nPackage: baccarat\nArchitecture: any\n' > "$work/debian/control"
		if (cd "$work" && dpkg-shlibdeps -O "$bin" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p' | grep .; then
			rm -rf "$work"
			return
		fi
		rm -rf "$work"
	fi
	glibc="$(objdump -T "$bin" 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sed 's/GLIBC_//' | sort -V | tail -n 1 || true)"
	if [ -n "$glibc" ]; then
		echo "libc6 (>= $glibc)"
	else
		echo "package-deb: warning: neither dpkg-shlibdeps nor objdump: Depends names libc6 without a version" >&2
		echo "libc6"
	fi
}

binary="" out="target/debian" compress="xz"
while [ $# -gt 0 ]; do
	case "$1" in
		--binary) binary="${2:?--binary: a path}"; shift 2 ;;
		--out) out="${2:?--out: a directory}"; shift 2 ;;
		--compress) compress="${2:?--compress: xz, gzip, zstd or none}"; shift 2 ;;
		-h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) die "unknown argument $1 (see --help)" ;;
	esac
done
case "$compress" in xz|gzip|zstd|none) ;; *) die "--compress: xz, gzip, zstd or none, not $compress" ;; esac
command -v dpkg-deb >/dev/null || die "dpkg-deb is needed (Debian's dpkg package)"

if [ -z "${SOURCE_DATE_EPOCH:-}" ]; then
	SOURCE_DATE_EPOCH="$(git log -1 --format=%ct 2>/dev/null || date +%s)"
fi
export SOURCE_DATE_EPOCH

if [ -z "$binary" ]; then
	cargo build --release --locked -p baccarat
	binary="${CARGO_TARGET_DIR:-target}/release/baccarat"
fi
[ -x "$binary" ] || die "--binary $binary: no such executable"

# The workspace's version, which the binary must name as its own.
version="$(awk '/^\[workspace.package\]/{p=1;next} /^\[/{p=0} p && $1=="version"{gsub(/"/,"",$3); print $3; exit}' Cargo.toml)"
[ -n "$version" ] || die "Cargo.toml: no version under [workspace.package]"
said="$("$binary" --version)" || die "$binary --version failed"
case "$said" in
	"baccarat $version "*) ;;
	*) die "$binary says \"$said\", not version $version: build it from this workspace" ;;
esac
arch="$(dpkg --print-architecture)"

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
root="$stage/root"
doc="$root/usr/share/doc/baccarat"
install -D -m 0755 "$binary" "$root/usr/bin/baccarat"
if command -v strip >/dev/null; then
	# As dh_strip does (lintian: unstripped-binary-or-object otherwise).
	strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/baccarat"
fi
install -D -m 0644 packaging/baccarat.service "$root/lib/systemd/system/baccarat.service"
install -D -m 0644 packaging/baccarat.sysusers "$root/usr/lib/sysusers.d/baccarat.conf"
# 0644 in the archive; the postinst makes it root:baccarat 0640.
install -D -m 0644 packaging/baccarat.toml.example "$root/etc/baccarat/config.toml"
install -D -m 0644 packaging/debian/copyright "$doc/copyright"
install -D -m 0644 packaging/debian/lintian-overrides "$root/usr/share/lintian/overrides/baccarat"
gzip -9n < CHANGELOG.md > "$doc/changelog.gz"
for chapter in install operating; do
	if [ -f "docs/$chapter.md" ]; then
		gzip -9n < "docs/$chapter.md" > "$doc/$chapter.md.gz"
	fi
done
chmod 0644 "$doc"/*

depends="$(shlib_depends "$(realpath "$root/usr/bin/baccarat")")"

mkdir -m 0755 "$root/DEBIAN"
cat > "$root/DEBIAN/control" <<CONTROL
Package: baccarat
Version: $version
Architecture: $arch
Maintainer: ${DEB_MAINTAINER:-The baccarat authors <baccarat@localhost>}
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends, systemd | adduser
Section: misc
Priority: optional
Description: casino baccarat table server, back office and audit tools
 The table server (HTTP and WebSocket) on SQLite or PostgreSQL, its back
 office, and the baccarat command: exact odds, simulation and verify, which
 checks a casino's signed audit chains and books. Runs as the systemd
 service baccarat.service, as the user baccarat, with its state in
 /var/lib/baccarat and its settings in /etc/baccarat/config.toml.
CONTROL
echo /etc/baccarat/config.toml > "$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
	install -m 0755 "packaging/debian/$script" "$root/DEBIAN/$script"
done
chmod 0644 "$root/DEBIAN/control" "$root/DEBIAN/conffiles"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

mkdir -p "$out"
deb="$out/baccarat_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Z"$compress" --build "$root" "$deb" >/dev/null
echo "$deb"
