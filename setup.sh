#!/usr/bin/env bash
# One command from a fresh Debian/Ubuntu machine to a result:
#
#   ./setup.sh run      install missing build packages, build, estimate the llama-3.1-8b preset
#   ./setup.sh check    install missing build and test packages, build, run make check
#   ./setup.sh deps     only install missing build packages
#   ./setup.sh test-deps  only install missing build and test packages
#
# Packages are installed with apt-get, only those missing, as root (or through sudo).
# Nothing is installed when everything is present.
set -euo pipefail
cd "$(dirname "$0")"

build_pkgs=(make gcc libc6-dev pkg-config libcjson-dev libyaml-dev)
# python3-venv: the Python package is built and installed into a venv by the tests (pip
# inside it comes from ensurepip); cmake: the CMake package test (test/test_cmake.sh); mypy:
# mypy --strict on a script that reads typed results (test/python/test_typing.py).
test_pkgs=(g++ libcmocka-dev valgrind abigail-tools doxygen python3 python3-venv cmake binutils mypy)

# A package counts as present when dpkg says so, or when its command is on PATH
# (python3 from pyenv, a compiler from elsewhere).
present() {
    local pkg=$1 cmd=
    case "$pkg" in
    make | valgrind | doxygen | python3 | pkg-config | cmake | mypy) cmd=$pkg ;;
    gcc) cmd=cc ;;
    g++) cmd=c++ ;;
    abigail-tools) cmd=abidiff ;;
    binutils) cmd=nm ;;
    esac
    if [ -n "$cmd" ] && command -v "$cmd" >/dev/null 2>&1; then
        return 0
    fi
    if [ "$pkg" = python3-venv ] && python3 -c 'import ensurepip, venv' >/dev/null 2>&1; then
        return 0
    fi
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'
}

install_missing() {
    local missing=() pkg
    for pkg in "$@"; do
        present "$pkg" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    echo "setup: installing ${missing[*]}"
    local sudo=()
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null 2>&1 || {
            echo "setup: missing ${missing[*]}; run as root or install them" >&2
            exit 1
        }
        sudo=(sudo)
    fi
    command -v apt-get >/dev/null 2>&1 || {
        echo "setup: no apt-get; install ${missing[*]} with your package manager" >&2
        exit 1
    }
    export DEBIAN_FRONTEND=noninteractive
    "${sudo[@]}" apt-get update -q </dev/null
    "${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null
}

case "${1:-run}" in
deps) install_missing "${build_pkgs[@]}" ;;
test-deps) install_missing "${build_pkgs[@]}" "${test_pkgs[@]}" ;;
run)
    install_missing "${build_pkgs[@]}"
    make -j"$(nproc 2>/dev/null || echo 2)"
    ./examples/llmmem estimate --preset llama-3.1-8b
    ;;
check)
    install_missing "${build_pkgs[@]}" "${test_pkgs[@]}"
    make -j"$(nproc 2>/dev/null || echo 2)"
    make check
    ;;
*)
    echo "usage: ./setup.sh [run|check|deps|test-deps]" >&2
    exit 2
    ;;
esac
