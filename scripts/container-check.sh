#!/usr/bin/env bash
# Builds the Dockerfile's image with podman and runs it: checks it runs as uid 1000, becomes ready,
# passes its HEALTHCHECK, serves the API and Swagger UI, and exits 0 on SIGTERM within the grace
# period; prints the image's size and that of the service's own layers.
#
#   bash scripts/container-check.sh          # CONTAINER_CHECK=skip: do nothing (say so)
#
# Needs no Docker daemon and no container registry: without a local node:24-bookworm-slim it makes
# a stand-in (Debian bookworm minbase from debootstrap, Node 24 and npm 11 from the npm registry),
# kept in podman's storage for the next runs. Missing tools are installed with apt-get.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${CONTAINER_CHECK:-}" = skip ]; then
  echo "container check skipped (CONTAINER_CHECK=skip)"
  exit 0
fi

IMAGE=${CONTAINER_IMAGE:-localhost/blog-service:check}
BASE=node:24-bookworm-slim
NAME=blog-service-check-$$
STOP_GRACE=15
WORK=$(mktemp -d)
cleanup() {
  podman rm -f -t 0 "$NAME" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "container check FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR

fail() {
  echo "container check FAILED: $*" >&2
  exit 1
}
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }
mb() { awk -v b="$1" 'BEGIN { printf "%.0f MB", b / 1e6 }'; }

# ---- tools -------------------------------------------------------------------------------------
missing=()
for tool in podman runc debootstrap; do command -v "$tool" >/dev/null 2>&1 || missing+=("$tool"); done
if [ ${#missing[@]} -gt 0 ]; then
  command -v apt-get >/dev/null 2>&1 || fail "${missing[*]} missing and no apt-get to install them (CONTAINER_CHECK=skip to skip)"
  echo "installing ${missing[*]} (and buildah) from Debian's packages"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman buildah runc debootstrap >/dev/null
fi

# Default ulimits podman could not set without CAP_SYS_RESOURCE, and runc, as crun refuses hybrid
# cgroups. A caller's own CONTAINERS_CONF wins.
if [ -z "${CONTAINERS_CONF:-}" ]; then
  cat >"$WORK/containers.conf" <<'EOF'
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
runtime = "runc"
EOF
  export CONTAINERS_CONF="$WORK/containers.conf"
fi
podman info >/dev/null 2>&1 || fail "podman cannot run here: $(podman info 2>&1 | tail -n 3)"

# ---- base image: the official one if present locally, else a stand-in --------------------------
if ! podman image exists "$BASE"; then
  echo "no $BASE image: making a stand-in from Debian bookworm minbase, Node 24 and npm 11"
  if ! podman image exists localhost/debian-bookworm:minbase; then
    # The Debian mirror apt uses (one-line .list or deb822 .sources entries).
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
      | sed -E 's/\[[^]]*\]//' | grep -oE '^(deb|URIs:)\s+\S+/debian/?(\s|$)' | awk '{ print $2; exit }' || true)
    debootstrap --variant=minbase bookworm "$WORK/rootfs" "${DEBIAN_MIRROR:-${mirror:-http://deb.debian.org/debian}}" \
      >"$WORK/debootstrap.log" 2>&1 || { tail -n 20 "$WORK/debootstrap.log" >&2; fail "debootstrap"; }
    tar --numeric-owner -C "$WORK/rootfs" -c . | podman import - localhost/debian-bookworm:minbase >/dev/null
    rm -rf "$WORK/rootfs"
  fi
  case $(uname -m) in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) fail "no Node build for $(uname -m)" ;; esac
  mkdir -p "$WORK/base/node" "$WORK/base/npm"
  (cd "$WORK/base" && npm pack -s "node-linux-$arch@24" "npm@11" >/dev/null)
  tar -xzf "$WORK"/base/node-linux-*.tgz -C "$WORK/base/node" --strip-components=1
  tar -xzf "$WORK"/base/npm-*.tgz -C "$WORK/base/npm" --strip-components=1
  # Like the official image: node in /usr/local/bin, npm global, user node (1000:1000).
  cat >"$WORK/base/Containerfile" <<'EOF'
FROM localhost/debian-bookworm:minbase
COPY node/bin/node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \
    && groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node
CMD ["node"]
EOF
  podman build -q --pull=never --format docker -t "localhost/$BASE" "$WORK/base" >/dev/null
fi

# ---- build ---------------------------------------------------------------------------------------
# npm in the build trusts this machine's CA bundle (a TLS-inspecting proxy re-signs the registry's
# certificate on some networks): npm's global config, mounted for the build only.
mkdir -p "$WORK/npmconf"
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  cp /etc/ssl/certs/ca-certificates.crt "$WORK/npmconf/ca.crt"
  echo "cafile=/usr/local/etc/ca.crt" >"$WORK/npmconf/npmrc"
fi
printf 'registry=%s\nupdate-notifier=false\n' "$(npm config get registry 2>/dev/null)" >>"$WORK/npmconf/npmrc"

echo "building $IMAGE"
t0=$(now)
podman build -q --pull=never --format docker -v "$WORK/npmconf:/usr/local/etc:ro" -t "$IMAGE" . >/dev/null
echo "built in $(elapsed "$t0" "$(now)") s"

# ---- run ---------------------------------------------------------------------------------------
PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
JWT_SECRET=$(node -e 'console.log(require("crypto").randomBytes(48).toString("base64"))')
export PORT JWT_SECRET
URL=http://127.0.0.1:$PORT

t0=$(now)
# Without systemd podman cannot schedule the health check timers and says so on stderr (harmless:
# the check is run below by hand); that goes to a log shown only on failure.
podman run -d --name "$NAME" --network=host -e PORT -e JWT_SECRET "$IMAGE" >/dev/null 2>"$WORK/podman.log" \
  || { cat "$WORK/podman.log" >&2; fail "podman run"; }
ready=
deadline=$((SECONDS + 120)) # a first start initialises the embedded database: seconds, more on a busy machine
while [ "$SECONDS" -lt "$deadline" ]; do
  if node -e 'fetch(process.argv[1]).then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))' "$URL/health/ready"; then
    ready=$(elapsed "$t0" "$(now)")
    break
  fi
  [ "$(podman inspect --format '{{.State.Running}}' "$NAME")" = true ] || break
  sleep 0.5
done
[ -n "$ready" ] || { podman logs "$NAME" 2>&1 | tail -n 20 >&2; fail "/health/ready did not answer 200"; }
echo "ok: /health/ready 200 after $ready s"

uid=$(podman exec "$NAME" id -u)
[ "$uid" = 1000 ] || fail "runs as uid $uid, not 1000"
echo "ok: runs as uid 1000"

podman healthcheck run "$NAME" 2>>"$WORK/podman.log" || { cat "$WORK/podman.log" >&2; fail "HEALTHCHECK failed"; }
echo "ok: HEALTHCHECK passes"

# The API and Swagger UI on what the image really holds: create, read and list a blog with an
# HS256 token signed here with the secret the container was given, then the docs page and its script.
node - "$URL" <<'EOF' || fail "smoke test"
const { createHmac } = require('node:crypto');
const base = process.argv[2];
const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'container-check', exp: Math.floor(Date.now() / 1000) + 300 })}`;
const token = `${unsigned}.${createHmac('sha256', process.env.JWT_SECRET).update(unsigned).digest('base64url')}`;
async function expect(status, path, init) {
  const res = await fetch(base + path, init);
  if (res.status !== status) throw new Error(`${init?.method ?? 'GET'} ${path}: ${res.status}, expected ${status}: ${await res.text()}`);
  return res;
}
(async () => {
  const blog = { title: 'Container check', content: 'Written by scripts/container-check.sh', author: 'CI' };
  const created = await (await expect(201, '/api/v1/blogs', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(blog),
  })).json();
  const read = await (await expect(200, `/api/v1/blogs/${created.id}`)).json();
  if (read.title !== blog.title) throw new Error(`read back ${JSON.stringify(read)}`);
  const list = await (await expect(200, '/api/v1/blogs')).json();
  if (!JSON.stringify(list).includes(created.id)) throw new Error(`list lacks ${created.id}`);
  const html = await (await expect(200, '/api/docs')).text();
  const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => new URL(m[1], `${base}/api/docs/`).pathname);
  if (!scripts.some((s) => s.endsWith('swagger-ui-bundle.js'))) throw new Error('Swagger UI page without swagger-ui-bundle.js');
  for (const s of scripts) await expect(200, s);
  console.log(`ok: blog ${created.id} created, read and listed; Swagger UI and ${scripts.length} scripts served`);
})().catch((e) => { console.error(e.message); process.exit(1); });
EOF

t0=$(now)
podman stop -t "$STOP_GRACE" "$NAME" >/dev/null 2>>"$WORK/podman.log" || { cat "$WORK/podman.log" >&2; fail "podman stop"; }
stopped=$(elapsed "$t0" "$(now)")
code=$(podman inspect --format '{{.State.ExitCode}}' "$NAME")
[ "$code" = 0 ] || { podman logs "$NAME" 2>&1 | tail -n 20 >&2; fail "exit status $code after SIGTERM"; }
awk -v s="$stopped" -v g="$STOP_GRACE" 'BEGIN { exit !(s < g) }' || fail "took $stopped s to stop (grace $STOP_GRACE s)"
echo "ok: SIGTERM: exit 0 after $stopped s"

# ---- size ----------------------------------------------------------------------------------------
size=$(podman image inspect --format '{{.Size}}' "$IMAGE")
base_size=$(podman image inspect --format '{{.Size}}' "$BASE")
echo "image $IMAGE: $(mb "$size"), of which the service's own layers $(mb $((size - base_size))) (base $BASE $(mb "$base_size"))"
# Newest layers first; awk reads all of it (head would cut podman's pipe and fail the script).
podman history --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" | awk 'NR <= 8 { print substr($0, 1, 110) }'
