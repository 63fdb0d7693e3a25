#!/usr/bin/env bash
# npm run test:image: builds the image from this checkout with podman and runs it as an operator
# would, hardened. Bash, not TypeScript: it is a sequence of podman and psql commands, and
# podman-base.sh hands over its settings as shell exports.
#
#   1. podman set up by ../shared/docker/podman-base.sh (or CI_PODMAN_BASE), with its base images;
#   2. the image built with npm's configuration as build secrets (npmrc, npm_ca), timed, sized,
#      and searched for the secrets (none may be in any layer);
#   3. migrations run from the image against a fresh database on 127.0.0.1:5432;
#   4. the API and the worker run from it with --read-only --cap-drop=ALL
#      --security-opt=no-new-privileges, memory and process limits, on ports of their own:
#      /healthz, /readyz, a key-authenticated request (workspace, member and key made by the CLI
#      inside the container), the worker's /healthz, both HEALTHCHECKs (`podman healthcheck run`),
#      and SIGTERM: both exit 0 within their grace period;
#   5. a build with a wrong npm secret fails, showing npm's own error.
# Containers and the database are removed whatever happens; the image stays tagged
# (IMAGE_TEST_TAG) so that the next build reuses its layers. IMAGE_TEST_NO_CACHE=1 builds from
# scratch. Runs at low CPU priority.
set -euo pipefail
cd "$(dirname "$0")/.."

TAG=${IMAGE_TEST_TAG:-localhost/workspace-api:image-test}
PG=${IMAGE_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432}
API_GRACE=20     # compose's stop_grace_period for both
WORKER_GRACE=20
RUN_ID="$(date +%s)_$$"
DB_NAME="wsapi_image_${RUN_ID}"
API=wsapi-image-api-$RUN_ID
WORKER=wsapi-image-worker-$RUN_ID
WORK=$(mktemp -d)

step() { echo "== test:image: $*"; }
# Podman without systemd complains on every container with a healthcheck that it cannot schedule
# it (it runs only through `podman healthcheck run`, as here): those lines alone are dropped.
quiet() { "$@" 2> >(grep -v 'unable to get systemd connection' >&2); }
fail() { echo "test:image: FAILED: $*" >&2; exit 1; }

BASE=${CI_PODMAN_BASE:-}
if [ -z "$BASE" ] && [ -x ../shared/docker/podman-base.sh ]; then BASE=$(readlink -f ../shared/docker/podman-base.sh); fi
[ -n "$BASE" ] && [ -x "$BASE" ] || fail "no podman setup script at ../shared/docker/podman-base.sh: set CI_PODMAN_BASE to podman-base.sh"
command -v psql >/dev/null || fail "psql is needed to create the test database"

cleanup() {
  local code=$?
  set +e
  for ctr in "$API" "$WORKER"; do
    if podman container exists "$ctr" 2>/dev/null; then
      [ "$code" = 0 ] || { echo "-- last lines of $ctr:"; podman logs --tail 20 "$ctr" 2>&1; }
      podman rm -f -t 0 "$ctr" >/dev/null 2>&1
    fi
  done
  psql "$PG/postgres" -qAtc "drop database if exists $DB_NAME with (force)" >/dev/null 2>&1
  rm -rf "$WORK"
  exit "$code"
}
trap cleanup EXIT

step "podman ($BASE)"
exports=$("$BASE") || fail "$BASE failed (its log is on stderr above)"
eval "$exports"
: "${NODE_IMAGE:?podman-base.sh exported no NODE_IMAGE}" "${NPM_ETC:?podman-base.sh exported no NPM_ETC}"

# The registry settings podman-base.sh found for npm here, as the npmrc secret; the proxy's CA, if
# any, as the npm_ca secret (npm's own cafile line points into its folder, not at the secret).
# A marker line shows whether the secret reached any layer.
MARKER="wsapi-image-secret-$RUN_ID"
{ echo "# $MARKER"; grep -v '^cafile=' "$NPM_ETC/npmrc"; } > "$WORK/npmrc"
SECRETS=(--secret "id=npmrc,src=$WORK/npmrc")
[ -f "$NPM_ETC/ca.pem" ] && SECRETS+=(--secret "id=npm_ca,src=$NPM_ETC/ca.pem")
NO_CACHE=()
[ "${IMAGE_TEST_NO_CACHE:-0}" = 1 ] && NO_CACHE=(--no-cache)

step "build $TAG from $NODE_IMAGE"
start=$(date +%s)
# --format docker keeps the HEALTHCHECK; --network=host reaches the registry as this machine does.
nice podman build --format docker --network=host --pull=never "${NO_CACHE[@]}" "${SECRETS[@]}" \
  --build-arg NODE_IMAGE="$NODE_IMAGE" -t "$TAG" . > "$WORK/build.log" 2>&1 \
  || { tail -40 "$WORK/build.log"; fail "podman build"; }
build_s=$(( $(date +%s) - start ))
size=$(podman image inspect "$TAG" --format '{{.Size}}')
echo "built in ${build_s} s${NO_CACHE:+ (--no-cache)}; image size $(( size / 1000000 )) MB"

[ -n "$(podman image inspect "$TAG" --format '{{.Config.Healthcheck}}' | grep healthz)" ] || fail "the image has no HEALTHCHECK (built without --format docker?)"
podman image save -q --format docker-archive -o "$WORK/image.tar" "$TAG"
if tar -xOf "$WORK/image.tar" | grep -aq "$MARKER"; then fail "the npmrc secret is in a layer of the image"; fi
if [ -f "$NPM_ETC/ca.pem" ] && tar -xOf "$WORK/image.tar" | grep -aqF "$(sed -n 2p "$NPM_ETC/ca.pem")"; then fail "the CA secret is in a layer of the image"; fi
rm -f "$WORK/image.tar"
echo "no layer holds the npmrc or the CA"

free_port() { node -e "const s = require('net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })"; }
API_PORT=$(free_port)
WORKER_PORT=$(free_port)
[ "$API_PORT" != "$WORKER_PORT" ] || WORKER_PORT=$(free_port)

psql "$PG/postgres" -qAtc "create database $DB_NAME" >/dev/null || fail "could not create database $DB_NAME on $PG"
HARDENED=(--network=host --read-only --cap-drop=ALL --security-opt=no-new-privileges --memory=512m --pids-limit=128)
# Secrets made for this run only; nothing in the repository signs anything.
ENV=(-e NODE_ENV=production -e "DATABASE_URL=$PG/$DB_NAME" -e HOST=127.0.0.1 -e LOG_LEVEL=info
  -e "SESSION_SECRET=$(openssl rand -hex 32)" -e "TOKEN_SECRET=$(openssl rand -hex 32)")

step "migrate from the image"
quiet podman run --rm "${HARDENED[@]}" "${ENV[@]}" "$TAG" workspace-api migrate > "$WORK/migrate.log" || { cat "$WORK/migrate.log"; fail "workspace-api migrate"; }
echo "ok  workspace-api migrate: $(grep -o '[0-9]\{14\}_' "$WORK/migrate.log" | wc -l) migrations applied"

step "start the API (port $API_PORT) and the worker (health on $WORKER_PORT), hardened"
quiet podman run -d --name "$API" "${HARDENED[@]}" "${ENV[@]}" -e "PORT=$API_PORT" "$TAG" >/dev/null
quiet podman run -d --name "$WORKER" "${HARDENED[@]}" --memory=384m "${ENV[@]}" -e "WORKER_HEALTH_PORT=$WORKER_PORT" \
  --health-cmd "[\"node\", \"-e\", \"fetch('http://127.0.0.1:$WORKER_PORT/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))\"]" \
  "$TAG" node dist/src/webhooks/worker-main.js >/dev/null

wait_for() { # url, what
  for _ in $(seq 1 120); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.5; done
  fail "$2 did not answer at $1 within 60 s"
}
expect_json() { # url, expected body, what [, curl options...]
  local url=$1 want=$2 what=$3; shift 3
  local got
  got=$(curl -sS -w ' %{http_code}' "$@" "$url") || fail "$what: no answer"
  [ "$got" = "$want" ] || fail "$what: expected '$want', got '$got'"
  echo "ok  $what: $got"
}
wait_for "http://127.0.0.1:$API_PORT/healthz" "the API"
wait_for "http://127.0.0.1:$WORKER_PORT/healthz" "the worker"
expect_json "http://127.0.0.1:$API_PORT/healthz" '{"status":"ok"} 200' "API /healthz"
expect_json "http://127.0.0.1:$API_PORT/readyz" '{"status":"ready"} 200' "API /readyz"
expect_json "http://127.0.0.1:$WORKER_PORT/healthz" '{"status":"ok"} 200' "worker /healthz"

step "the CLI inside the container: a workspace, a member, a key; then a key-authenticated request"
cli() { podman exec "$API" workspace-api "$@" --json; }
org=$(cli org create --name "Image test" --tier BUSINESS --features DEVELOPER_API --region GB | jq -r .id)
member=$(cli member create --org "$org" --name "Image Tester" --email "image-test@example.com" --permissions DEVELOPER | jq -r .id)
key=$(cli key create --org "$org" --member "$member" --name "image test" --scopes leads.read | jq -r .key)
[[ "$org" == org_* && "$member" == mem_* && -n "$key" && "$key" != null ]] || fail "the CLI did not make a workspace, member and key"
expect_answer() { # url, status, jq test, what, curl options...
  local url=$1 want=$2 test=$3 what=$4; shift 4
  local status
  status=$(curl -sS -o "$WORK/body" -w '%{http_code}' "$@" "$url") || fail "$what: no answer"
  [ "$status" = "$want" ] && jq -e "$test" "$WORK/body" >/dev/null || fail "$what: expected $want and $test, got $status $(head -c 300 "$WORK/body")"
  echo "ok  $what: $status"
}
expect_answer "http://127.0.0.1:$API_PORT/api/v1/leads" 200 '.pagination.total == 0' "GET /api/v1/leads with the key" -H "Authorization: Bearer $key"
expect_answer "http://127.0.0.1:$API_PORT/api/v1/leads" 401 '.error.code == "UNAUTHORIZED"' "GET /api/v1/leads without a key"

step "HEALTHCHECK (podman runs it only when asked: no systemd here)"
podman healthcheck run "$API" >/dev/null || fail "the image's HEALTHCHECK failed on the API"
echo "ok  the image's HEALTHCHECK on the API"
podman healthcheck run "$WORKER" >/dev/null || fail "the worker's healthcheck failed"
echo "ok  the worker's healthcheck"

step "SIGTERM: both drain and exit 0 within their grace period"
stop_clean() { # container, grace, the log line of a clean stop
  local start elapsed code
  start=$(date +%s%N)
  quiet podman stop -t "$2" "$1" >/dev/null
  elapsed=$(( ($(date +%s%N) - start) / 1000000 ))
  code=$(podman inspect "$1" --format '{{.State.ExitCode}}')
  [ "$code" = 0 ] || fail "$1 exited $code on SIGTERM"
  [ "$elapsed" -lt $(( $2 * 1000 )) ] || fail "$1 took ${elapsed} ms, not under its ${2} s grace"
  podman logs "$1" 2>&1 | grep -q "$3" || fail "$1 did not log '$3'"
  echo "ok  $1: exit 0 after ${elapsed} ms"
}
stop_clean "$API" "$API_GRACE" 'database closed'
stop_clean "$WORKER" "$WORKER_GRACE" 'webhook worker stopped'

step "a build with a wrong npm secret fails with npm's own message"
printf 'registry=http://127.0.0.1:9/\nfetch-retries=0\n' > "$WORK/bad-npmrc"
# --no-cache: the layer cache does not know the secret changed.
if nice podman build --format docker --network=host --pull=never --no-cache --secret "id=npmrc,src=$WORK/bad-npmrc" \
    --build-arg NODE_IMAGE="$NODE_IMAGE" -t localhost/workspace-api:image-test-bad . > "$WORK/bad-build.log" 2>&1; then
  podman rmi -f localhost/workspace-api:image-test-bad >/dev/null 2>&1
  fail "the build with registry=http://127.0.0.1:9/ succeeded"
fi
grep -E '^npm error' "$WORK/bad-build.log" | head -4
grep -qE '^npm error (code ECONNREFUSED|.*127\.0\.0\.1:9)' "$WORK/bad-build.log" || { tail -20 "$WORK/bad-build.log"; fail "the failed build did not show npm's error"; }
echo "ok  the wrong secret's build failed with npm's message"

step "passed (build ${build_s} s, image $(( size / 1000000 )) MB)"
