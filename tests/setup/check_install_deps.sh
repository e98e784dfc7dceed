#!/usr/bin/env bash
# Fails when the build uses a Debian package that scripts/install-deps would not bring onto a fresh machine.
#
#   check_install_deps.sh BUILD_DIR INSTALL_DEPS_SCRIPT [PACKAGE_TO_PRETEND_UNLISTED...]
#
# What the build needs is read from what CMake really found, not from a table kept by hand: every package
# configuration directory in CMakeCache.txt (find_package in config mode, and everything those pull in, such
# as Qt6Charts -> Qt6OpenGL) and every system library on a link line in build.ninja (find modules and
# pkg_check_modules). `dpkg -S` names the package owning each file; that package must be listed by
# install-deps or be a hard dependency (Depends/Pre-Depends, recursively) of a listed one. Recommends do not
# count: install-deps installs with --no-install-recommends. Files under /usr/local (the optional CUDA toolkit)
# are skipped. Extra arguments drop packages from the list, so a test can prove the check fails.
set -euo pipefail
build=$1
install_deps=$2
shift 2

declare -A listed=() dropped=() closure=() depends=() provided_by=()
for p in "$@"; do dropped[$p]=1; done
for p in $("$install_deps" --list); do
  [ -n "${dropped[$p]:-}" ] || listed[$p]=1
done
[ ${#listed[@]} -gt 0 ] || { echo "check_install_deps: $install_deps --list printed no packages"; exit 1; }

# Installed packages with their hard dependencies, and who provides which virtual package.
while IFS=$'\t' read -r pkg status deps provides; do
  [[ $status == *" installed" ]] || continue
  depends[$pkg]=$deps
  IFS=',' read -ra provs <<<"$provides"
  for v in "${provs[@]}"; do
    v=${v%%(*}; v=${v// /}
    [ -n "$v" ] && provided_by[$v]+=" $pkg"
  done
done < <(dpkg-query -W -f='${Package}\t${Status}\t${Depends}, ${Pre-Depends}\t${Provides}\n')

queue=("${!listed[@]}")
while [ ${#queue[@]} -gt 0 ]; do
  p=${queue[-1]}
  unset 'queue[-1]'
  [ -z "${closure[$p]:-}" ] || continue
  closure[$p]=1
  IFS=',' read -ra alternatives <<<"${depends[$p]:-}"
  for alt in "${alternatives[@]}"; do
    IFS='|' read -ra names <<<"$alt"
    for n in "${names[@]}"; do
      n=${n%%(*}; n=${n// /}; n=${n%%:*}
      [ -n "$n" ] || continue
      [ -n "${depends[$n]+x}" ] && queue+=("$n")
      for q in ${provided_by[$n]:-}; do queue+=("$q"); done
    done
  done
done

# What the build used.
needed=()
while IFS='=' read -r key dir; do
  [ -d "$dir" ] || continue
  name=${key%_DIR}
  lower=$(tr '[:upper:]' '[:lower:]' <<<"$name")
  for config in "$dir/${name}Config.cmake" "$dir/${lower}-config.cmake"; do
    [ -f "$config" ] && needed+=("$config") && break
  done
done < <(sed -n 's/^\([A-Za-z0-9_]*_DIR\):PATH=\(.*\)$/\1=\2/p' "$build/CMakeCache.txt")
while read -r lib; do
  needed+=("$lib")
done < <(grep -o '^ *LINK_LIBRARIES = .*' "$build/build.ninja" | tr ' ' '\n' | grep '^/usr/' | grep -v '^/usr/local/' |
         sort -u)
[ ${#needed[@]} -gt 0 ] || { echo "check_install_deps: found nothing the build uses in $build (not configured?)"; exit 1; }

# One dpkg -S for every file (it is slow per call); files it does not know are asked again by their real path
# (libraries reached through alternatives symlinks).
declare -A owner_of=()
own() {
  local line
  while IFS= read -r line; do
    [[ $line == diversion* ]] && continue
    owner_of[${line#*: }]=${line%%: /*}
  done < <(dpkg -S "$@" 2>/dev/null || true)
}
paths=()
for path in "${needed[@]}"; do [[ $path == /usr/local/* ]] || paths+=("$path"); done
own "${paths[@]}"
declare -A real_of=()
unknown=()
for path in "${paths[@]}"; do
  [ -n "${owner_of[$path]:-}" ] && continue
  real_of[$path]=$(readlink -f "$path")
  unknown+=("${real_of[$path]}")
done
[ ${#unknown[@]} -eq 0 ] || own "${unknown[@]}"

failures=0
for path in "${paths[@]}"; do
  owner=${owner_of[$path]:-${owner_of[${real_of[$path]:-}]:-}}
  if [ -z "$owner" ]; then
    echo "the build uses $path, which no Debian package installed (install-deps cannot bring it)"
    failures=$((failures + 1))
    continue
  fi
  ok=0
  IFS=',' read -ra owners <<<"$owner"
  for o in "${owners[@]}"; do
    o=${o// /}; o=${o%%:*}
    [ -n "${closure[$o]:-}" ] && ok=1
  done
  if [ $ok -eq 0 ]; then
    echo "the build needs ${owner%%:*} (for $path), which scripts/install-deps does not install"
    failures=$((failures + 1))
  fi
done
if [ $failures -gt 0 ]; then
  echo "check_install_deps: $failures file(s) the build uses would be missing on a fresh machine"
  exit 1
fi
echo "check_install_deps: all ${#needed[@]} package configs and libraries the build uses come from packages install-deps installs"
