# Varnish 7 in front of the blog service (docs/operations.md, "Behind a cache or CDN"); needs the xkey module
# (Debian: varnish, varnish-modules; the official varnish image has it).
#
# - Requests with Authorization pass: they are never looked up nor stored (their answers are no-store anyway).
# - Cookies are ignored: the service reads none.
# - The service says what may be kept (Cache-Control: public, s-maxage=…) and under which keys (Surrogate-Key);
#   everything else it marks no-store, which Varnish's built-in logic does not store.
# - `PURGE /` with `Surrogate-Key: k1 k2 …` from an address of `purgers` removes every object with one of those keys
#   (a hard purge: nothing purged is served again), answering 200 with `Purged: <count>`.
# - The backend is named `default`: point it at the service by replacing this one block.
vcl 4.1;

import xkey;

backend default {
    .host = "api";
    .port = "3000";
}

# Who may purge: this host and private networks (the service's replicas, in Compose or Kubernetes).
acl purgers {
    "localhost";
    "127.0.0.1";
    "::1";
    "10.0.0.0"/8;
    "172.16.0.0"/12;
    "192.168.0.0"/16;
    "fc00::"/7;
}

sub vcl_recv {
    if (req.method == "PURGE") {
        if (client.ip !~ purgers) {
            return (synth(403, "Forbidden"));
        }
        if (!req.http.Surrogate-Key) {
            return (synth(400, "Surrogate-Key required"));
        }
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

sub vcl_backend_response {
    # xkey indexes an object by the keys in its `xkey` header.
    if (beresp.http.Surrogate-Key) {
        set beresp.http.xkey = beresp.http.Surrogate-Key;
    }
}

sub vcl_deliver {
    unset resp.http.xkey;
    if (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
}

sub vcl_synth {
    if (req.method == "PURGE" && req.http.Purged) {
        set resp.http.Purged = req.http.Purged;
    }
}
