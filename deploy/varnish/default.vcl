# Varnish 7 in front of the blog service (docs/operations.md, "Behind a cache or CDN"); needs the xkey and var modules
# (Debian: varnish, varnish-modules; the official varnish image has them).
#
# - Requests with Authorization pass: they are never looked up nor stored (their answers are no-store anyway).
# - Cookies are ignored: the service reads none.
# - The service says what may be kept (Cache-Control: public, s-maxage=…) and under which keys (Surrogate-Key);
#   everything else it marks no-store, which Varnish's built-in logic does not store.
# - `PURGE /` with `Surrogate-Key: k1 k2 …` removes every object with one of those keys (a hard purge: nothing purged
#   is served again), answering 200 with `Purged: <count>`. Only from an address of `purgers` (this host), or with
#   `Authorization: Bearer <CACHE_PURGE_TOKEN>` when varnishd's environment sets CACHE_PURGE_TOKEN (32+ characters,
#   the service's own CACHE_PURGE_TOKEN); anyone else gets 403.
# - An answer whose fetch began before the last purge is served to its caller but not stored: it may have been read
#   before the write that purge took back. `Read-Lag-Bound: <ms>` (from a service reading a replica) moves the fetch's
#   start that much earlier.
# - A hit carries the caller's own X-Request-Id (or none), never the one of the request that filled the cache.
# - The backend is named `default`: point it at the service by replacing this one block.
vcl 4.1;

import std;
import var;
import xkey;

backend default {
    .host = "api";
    .port = "3000";
}

# Who may purge without the token: this host only. Widen it only to networks whose every client is trusted.
acl purgers {
    "localhost";
    "127.0.0.1";
    "::1";
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers &&
            !(std.getenv("CACHE_PURGE_TOKEN") ~ "^.{32,}$" &&
              req.http.Authorization == "Bearer " + std.getenv("CACHE_PURGE_TOKEN"))) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.Surrogate-Key) {
            return (synth(400, "Surrogate-Key required"));
        }
        # Before the purge: a fetch that began earlier and ends later is then not stored (vcl_backend_response).
        var.global_set("purged_at", "" + std.time2real(now, 0.0));
        set req.http.Purged = xkey.purge(req.http.Surrogate-Key);
        return (synth(200, "Purged"));
    }
    unset req.http.Cookie;
    if (req.method != "GET" && req.method != "HEAD") {
        return (pass);
    }
    if (req.http.Authorization) {
        return (pass);
    }
    return (hash);
}

sub vcl_backend_fetch {
    var.set_real("fetch_start", std.time2real(now, 0.0));
}

sub vcl_backend_response {
    if (beresp.http.Read-Lag-Bound) {
        var.set_real("fetch_start",
            var.get_real("fetch_start") - std.real(beresp.http.Read-Lag-Bound, 86400000.0) / 1000);
        unset beresp.http.Read-Lag-Bound;
    }
    if (var.get_real("fetch_start") <= std.real(var.global_get("purged_at"), 0.0)) {
        # Read before a write whose purge is done: serve it this once (hit-for-miss of no time), never store it.
        set beresp.ttl = 0s;
        set beresp.grace = 0s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # xkey indexes an object by the keys in its `xkey` header.
    if (beresp.http.Surrogate-Key) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
        set beresp.http.Fetch-Start = "" + var.get_real("fetch_start");
    }
}

sub vcl_deliver {
    # A purge between this fetch's check and the object's insertion (microseconds) is made again here.
    if (obj.hits == 0 && resp.http.Fetch-Start &&
        std.real(resp.http.Fetch-Start, 0.0) <= std.real(var.global_get("purged_at"), 0.0)) {
        xkey.purge(resp.http.Surrogate-Key);
    }
    unset resp.http.Fetch-Start;
    unset resp.http.xkey;
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
        if (req.http.X-Request-Id ~ "^[A-Za-z0-9._:-]{1,128}$") {
            set resp.http.X-Request-Id = req.http.X-Request-Id;
        } else {
            unset resp.http.X-Request-Id;
        }
    } else {
        set resp.http.X-Cache = "MISS";
    }
}

sub vcl_synth {
    if (req.method == "PURGE" && req.http.Purged) {
        set resp.http.Purged = req.http.Purged;
    }
}
