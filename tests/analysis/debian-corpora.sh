# Java, C, C++, PHP and Ruby corpora from Debian's packages, which carry the sources
# (`apt-get download`, no install; each extracted into $DL/deb-x/NAME and the listed paths
# taken from it). Sourced by tests/analysis_crosscheck.sh and benches/analysis-peers.sh, so
# that agreement and speed are measured on the same code; the caller sets DL (downloads),
# CORPUS (one directory per language) and a `fail MESSAGE` function.
deb_unpack() { # name=version -> the directory it is extracted in
  local d=$1 dir=$DL/deb-x/${1%%=*}
  if [ ! -d "$dir" ]; then
    mkdir -p "$DL/deb"
    if ! apt-cache show "${d%%=*}" >/dev/null 2>&1; then
      apt-get update -qq || fail "apt-get update failed (Debian's archive unreachable?)"
    fi
    ls "$DL/deb/${d%%=*}"_*.deb >/dev/null 2>&1 || (cd "$DL/deb" && apt-get download -q -o APT::Sandbox::User=root "$d" >/dev/null) \
      || fail "apt-get download $d failed (Debian's archive unreachable, or the version is gone: update it here)"
    mkdir -p "$dir.tmp" && dpkg-deb -x "$DL/deb/${d%%=*}"_*.deb "$dir.tmp" && mv "$dir.tmp" "$dir"
  fi
  echo "$dir"
}
deb_take() { # lang project name=version path-in-package...
  local lang=$1 project=$2 d=$3; shift 3
  local dest=$CORPUS/$lang/$project dir
  [ -d "$dest" ] && return
  dir=$(deb_unpack "$d")
  mkdir -p "$dest.tmp"
  for p in "$@"; do cp -r "$dir/$p" "$dest.tmp/"; done
  mv "$dest.tmp" "$dest"
}
# Only the language's own files stay.
keep_only() { # lang extension-regex
  find "$CORPUS/$1" -type f -not -regex ".*\\.\($2\\)" -delete
}

JDK=openjdk-17-source=17.0.21.1+2-1~deb12u1
fetch_java() {
  local dest=$CORPUS/java
  [ -d "$dest" ] && return
  local dir; dir=$(deb_unpack "$JDK")
  mkdir -p "$dest.tmp"
  # The JDK's own sources: collections, the language runtime, dates, HTTP and the compiler.
  (cd "$dest.tmp" && unzip -q "$dir/usr/lib/jvm/openjdk-17/lib/src.zip" \
    'java.base/java/util/*' 'java.base/java/lang/*' 'java.base/java/time/*' \
    'java.net.http/*' 'jdk.compiler/com/sun/tools/javac/*') || fail "unzip of the JDK's src.zip failed"
  mv "$dest.tmp" "$dest"
  keep_only java java
}
fetch_c() {
  [ -f "$CORPUS/.c-done" ] && return
  rm -rf "$CORPUS/c"
  deb_take c libxcrypt libxcrypt-source=1:4.4.33-2 usr/src/libxcrypt/lib
  local dir; dir=$(deb_unpack xorg-server-source=2:21.1.7-3+deb12u13)
  mkdir -p "$CORPUS/c/xorg-server"
  tar xJf "$dir/usr/src/xorg-server.tar.xz" -C "$CORPUS/c/xorg-server" --strip-components=1 \
    --wildcards '*/dix/*' '*/os/*' '*/mi/*' '*/Xext/*' '*/xkb/*' '*/render/*' '*/randr/*' '*/fb/*' \
    || fail "unpacking xorg-server.tar.xz failed"
  keep_only c 'c\|h'
  touch "$CORPUS/.c-done"
}
fetch_cpp() {
  [ -f "$CORPUS/.cpp-done" ] && return
  deb_take cpp googletest googletest=1.12.1-0.2 usr/src/googletest
  deb_take cpp dpf dpf-source=1.6+ds-2 usr/share/dpf
  keep_only cpp 'cpp\|cc\|hpp\|h'
  touch "$CORPUS/.cpp-done"
}
fetch_php() {
  [ -f "$CORPUS/.php-done" ] && return
  deb_take php monolog php-monolog=2.9.1-1 usr/share/php/Monolog
  deb_take php doctrine-dbal php-doctrine-dbal=3.6.1+dfsg-1 usr/share/php/Doctrine/DBAL
  deb_take php phpunit phpunit=9.6.7-1+deb12u1 usr/share/php/PHPUnit
  deb_take php composer composer=2.5.5-1+deb12u5 usr/share/php/Composer
  deb_take php laravel php-laravel-framework=8.83.26+dfsg-2 usr/share/php/Illuminate
  keep_only php php
  touch "$CORPUS/.php-done"
}
fetch_ruby() {
  [ -f "$CORPUS/.ruby-done" ] && return
  local gems=usr/share/rubygems-integration/all/gems
  deb_take ruby rack ruby-rack=2.2.22-0+deb12u2 $gems/rack-2.2.22/lib
  deb_take ruby thor ruby-thor=1.2.1-2 $gems/thor-1.2.1/lib
  deb_take ruby i18n ruby-i18n=1.10.0-2 $gems/i18n-1.10.0/lib
  deb_take ruby addressable ruby-addressable=2.8.1-1 $gems/addressable-2.8.1/lib
  deb_take ruby kramdown ruby-kramdown=2.4.0-2 $gems/kramdown-2.4.0/lib
  deb_take ruby rubocop rubocop=1.39.0+dfsg-1 $gems/rubocop-1.39.0/lib
  keep_only ruby rb
  touch "$CORPUS/.ruby-done"
}
