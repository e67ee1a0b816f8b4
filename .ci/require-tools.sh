# Sourced by .ci/run: the tools some suites need are required before their
# install is tried, so a failed install fails CI instead of turning those
# suites into skips. A machine that cannot have a tool opts out by name:
#   TICKQ_SKIP_SIDEKIQ=1   the Sidekiq interop suite (test/integration/sidekiq/interop/), Debian's ruby-sidekiq
#   TICKQ_SKIP_CHROMIUM=1  the dashboard's browser test (test/integration/dashboard/browser.test.ts), Debian's chromium
#   TICKQ_SKIP_BUN=1       examples/bun under Bun (test/integration/examples/bun.test.ts), the `bun` package from npm
#   TICKQ_SKIP_DENO=1      examples/deno under Deno (test/integration/examples/deno.test.ts, test/scheduled/deno-cron.test.ts), the `deno` package from npm
#   TICKQ_SKIP_NEXT=1      examples/nextjs under next build and next start (test/scheduled/nextjs.test.ts), installed from npm by the test
# Otherwise TICKQ_REQUIRE_SIDEKIQ=1 / TICKQ_REQUIRE_CHROMIUM=1 are exported:
# the suites then fail, never skip, if the tool does not work. Bun and Deno come with `npm ci` (dev
# dependencies): a binary that does not run there fails CI here, naming its opt-out.

sidekiq_loads() { ruby -e 'require "sidekiq/api"' >/dev/null 2>&1; }
chromium_runs() { "${CHROMIUM_PATH:-/usr/bin/chromium}" --version >/dev/null 2>&1; }

# require_tool WHAT SKIP_VAR REQUIRE_VAR CHECK DEBIAN_PACKAGE
require_tool() {
  local what=$1 skip_var=$2 require_var=$3 check=$4 package=$5
  if [ "${!skip_var:-}" = "1" ]; then
    echo "$what: skipped on this machine ($skip_var=1)"
    return 0
  fi
  export "$require_var=1"
  if ! "$check"; then
    echo "$what is not installed: installing $package from Debian's packages"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package" >/dev/null; } || true
  fi
  if ! "$check"; then
    echo "$what does not work after installing $package: CI fails (set $skip_var=1 on a machine that cannot have it)" >&2
    return 1
  fi
}

require_tool "Ruby Sidekiq" TICKQ_SKIP_SIDEKIQ TICKQ_REQUIRE_SIDEKIQ sidekiq_loads ruby-sidekiq || return 1
require_tool "Chromium" TICKQ_SKIP_CHROMIUM TICKQ_REQUIRE_CHROMIUM chromium_runs chromium || return 1

bun_runs() { node_modules/.bin/bun --version >/dev/null 2>&1; }
deno_runs() { node_modules/.bin/deno --version >/dev/null 2>&1; }

# require_npm_tool WHAT SKIP_VAR CHECK: installed by `npm ci`; nothing more to install if it does not run.
require_npm_tool() {
  local what=$1 skip_var=$2 check=$3
  if [ "${!skip_var:-}" = "1" ]; then
    echo "$what: skipped on this machine ($skip_var=1)"
    return 0
  fi
  if ! "$check"; then
    echo "$what (from npm ci) does not run on this machine: CI fails (set $skip_var=1 on a machine that cannot have it)" >&2
    return 1
  fi
}

require_npm_tool "Bun" TICKQ_SKIP_BUN bun_runs || return 1
require_npm_tool "Deno" TICKQ_SKIP_DENO deno_runs || return 1
