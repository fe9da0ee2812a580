# Shared set-up for scripts/test and scripts/demo: pinned tool installs (only when a
# tool is missing or has the wrong version) and the API server's lifecycle.
# Sourced, not run.

WASM_BINDGEN_VERSION=0.2.130
TRUNK_VERSION=0.21.14
CARGO_LEPTOS_VERSION=0.3.5
# The demo proxies /api to this port (Trunk.toml); change both together.
RDC_API_PORT=${RDC_API_PORT:-3917}
export RDC_API_PORT
export RDC_API_URL="http://127.0.0.1:${RDC_API_PORT}"
export PATH="$HOME/.cargo/bin:$PATH"
# Builds live outside the clone so repeat runs stay warm, one folder per checkout
# path: cargo fingerprints workspace crates by their files' paths, so two
# checkouts sharing a folder could reuse each other's stale builds. An empty
# folder works, it is only slower.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$HOME/.cache/rdc/target-$(pwd | cksum | cut -d' ' -f1)}

say() { printf '\n==> %s\n' "$*"; }
die() { printf '\nerror: %s\n' "$*" >&2; exit 1; }

# A cold build of the tests needs about 10 GB in the build folder: say so before
# a build fails half-way with "No space left on device".
check_disk_space() {
  mkdir -p "$CARGO_TARGET_DIR"
  local free_gb
  free_gb=$(df -Pk "$CARGO_TARGET_DIR" | awk 'NR == 2 { print int($4 / 1048576) }')
  if [ "$free_gb" -lt 4 ]; then
    die "only ${free_gb} GB free under $CARGO_TARGET_DIR; the tests need about 10 GB (old build folders: $(dirname "$CARGO_TARGET_DIR"))"
  elif [ "$free_gb" -lt 12 ]; then
    printf '\nwarning: only %s GB free under %s; a cold build needs about 10 GB\n' "$free_gb" "$CARGO_TARGET_DIR" >&2
  fi
}

ensure_wasm_target() {
    if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
        say "installing the wasm32-unknown-unknown target"
        rustup target add wasm32-unknown-unknown || die "rustup could not add wasm32-unknown-unknown"
    fi
}

ensure_wasm_bindgen() {
    if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]; then
        say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (a few minutes)"
        # --locked can fail on a yanked webpki-roots in the registry index; retry without it.
        cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --locked --force \
            || cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force \
            || die "could not install wasm-bindgen-cli $WASM_BINDGEN_VERSION"
    fi
}

ensure_trunk() {
    if [ "$(trunk --version 2>/dev/null)" != "trunk $TRUNK_VERSION" ]; then
        say "installing trunk $TRUNK_VERSION (about 10 minutes on 2 cores)"
        cargo install trunk --version "$TRUNK_VERSION" --locked --force \
            || die "could not install trunk $TRUNK_VERSION"
    fi
}

# cargo-leptos, pinned (0.3.11 with --locked needs a newer rustc), built with
# `no_downloads`: it takes wasm-bindgen (and, for release builds, wasm-opt) from
# PATH and fails clearly instead of downloading them.
ensure_cargo_leptos() {
    if [ "$(cargo-leptos --version 2>/dev/null)" != "cargo-leptos $CARGO_LEPTOS_VERSION" ]; then
        say "installing cargo-leptos $CARGO_LEPTOS_VERSION (about 10 minutes on 2 cores)"
        cargo install cargo-leptos --version "$CARGO_LEPTOS_VERSION" --locked --features no_downloads --force \
            || die "could not install cargo-leptos $CARGO_LEPTOS_VERSION"
    fi
}

# Installs Debian packages $@ (as root, or through passwordless sudo).
apt_install() {
    say "installing Debian's $*"
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null && sudo -n true 2>/dev/null \
            || die "$* missing, and installing them needs root: run 'apt-get install -y $*' as root"
        sudo="sudo -n"
    fi
    $sudo apt-get update -q && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "$@" \
        || die "apt-get could not install $*"
}

ensure_chromium() {
    command -v chromium >/dev/null && command -v chromedriver >/dev/null || apt_install chromium chromium-driver
}

# curl: the servers' readiness checks.
ensure_curl() {
    command -v curl >/dev/null || apt_install curl
}

# Node 18+ with npm: the end-to-end tests use Node's own fetch.
ensure_node() {
    if ! command -v npm >/dev/null || [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 18 ]; then
        apt_install nodejs npm
    fi
}

# rustfmt and clippy, which the test command runs.
ensure_rust_components() {
    local installed
    installed=$(rustup component list --installed 2>/dev/null)
    for component in rustfmt clippy; do
        if ! grep -q "^$component" <<<"$installed"; then
            say "installing the $component component"
            rustup component add "$component" || die "rustup could not add $component"
        fi
    done
}

# Builds rdc-demo-server and starts it in the background on port $1 (default
# $RDC_API_PORT) with any further arguments (e.g. --static dist); waits until it answers.
SERVER_PIDS=()
start_api_server() {
    local port=${1:-$RDC_API_PORT}
    shift || true
    local url="http://127.0.0.1:$port"
    say "building and starting the API server on $url $*"
    cargo build -q -p rdc-demo-server || die "the API server did not build"
    if curl -fsS "$url/api/health" >/dev/null 2>&1; then
        die "port $port already answers; stop that server or set RDC_API_PORT"
    fi
    "$CARGO_TARGET_DIR/debug/rdc-demo-server" --port "$port" "$@" &
    local pid=$!
    SERVER_PIDS+=("$pid")
    for _ in $(seq 1 100); do
        curl -fsS "$url/api/health" >/dev/null 2>&1 && return
        kill -0 "$pid" 2>/dev/null || die "the API server exited at start"
        sleep 0.1
    done
    die "the API server did not answer on $url within 10 s"
}

# The server-rendered demo (demo-ssr/, a start-axum app in a workspace of its
# own), built as Leptos users build it: `cargo leptos build` (the server with
# `ssr`, the browser part with `hydrate`, bound by the pinned wasm-bindgen).
# $1: `--release` for the release build (wasm-opt'd, as `scripts/demo --ssr`
# serves it); none for the debug one the tests use. Also builds the load
# client, `ssr-load` (scripts/bench-ssr, and a short run in scripts/test).
SSR_SITE="$CARGO_TARGET_DIR/ssr-site"
SSR_SERVER=""
build_ssr_demo() {
    ensure_cargo_leptos
    local profile=debug
    if [ "${1:-}" = --release ]; then
        ensure_wasm_opt
        profile=release
    fi
    say "building the server-rendered demo with cargo leptos ($profile)"
    (cd demo-ssr && LEPTOS_SITE_ROOT="$SSR_SITE/$profile" cargo leptos build ${1:-}) \
        || die "the SSR demo did not build (cargo leptos build ${1:-})"
    SSR_SITE="$SSR_SITE/$profile"
    SSR_SERVER="$CARGO_TARGET_DIR/$profile/rdc-demo-ssr"
    cargo build -q --manifest-path demo-ssr/Cargo.toml --features ssr --bin ssr-load \
        || die "the SSR demo's load client did not build"
}

# Starts the server-rendered demo on port $1, fetching from the API on port $2.
start_ssr_demo() {
    local url="http://127.0.0.1:$1"
    "$SSR_SERVER" --port "$1" --api "http://127.0.0.1:$2" --site "$SSR_SITE" &
    local pid=$!
    SERVER_PIDS+=("$pid")
    for _ in $(seq 1 100); do
        curl -fsS -o /dev/null "$url/pkg/rdc_demo_ssr.css" 2>/dev/null && return
        kill -0 "$pid" 2>/dev/null || die "the SSR demo exited at start"
        sleep 0.1
    done
    die "the SSR demo did not answer on $url within 10 s"
}

stop_api_server() {
    for pid in "${SERVER_PIDS[@]}"; do
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    SERVER_PIDS=()
}

# Stops the servers on any exit, keeping the script's own exit status.
stop_servers_on_exit() {
    trap 'status=$?; stop_api_server; exit $status' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
}

# playwright-core for the demo's end-to-end test (no browser download: it drives
# Debian's chromium), pinned by e2e/package-lock.json.
ensure_e2e_modules() {
    if [ ! -d e2e/node_modules/playwright-core ]; then
        say "installing playwright-core for the demo end-to-end test (npm)"
        (cd e2e && npm ci --no-audit --no-fund) || die "npm could not install e2e/ (is the npm registry reachable?)"
    fi
}

# wasm-opt from npm's binaryen 132 (Debian's is too old: its output fails to
# hydrate), installed under ~/.cache/rdc when missing and put first on PATH.
ensure_wasm_opt() {
    local dir="${XDG_CACHE_HOME:-$HOME/.cache}/rdc/binaryen-132"
    if [ "$(wasm-opt --version 2>/dev/null)" != "wasm-opt version 132 (version_132)" ]; then
        if [ ! -x "$dir/node_modules/.bin/wasm-opt" ]; then
            ensure_node
            say "installing wasm-opt (npm binaryen@132)"
            mkdir -p "$dir"
            npm install --no-audit --no-fund --no-save --prefix "$dir" binaryen@132 >/dev/null \
                || die "npm could not install binaryen (is the npm registry reachable?)"
        fi
        export PATH="$dir/node_modules/.bin:$PATH"
    fi
}
