// What every page of the loopback server (labels/server.py) shares, loaded before the page's own
// script: the access token from the URL, `$`, and `api`, which sends the token with each request
// and turns a refusal's {"error": why} into a thrown Error. A classic script, not a module, so
// its names are the page script's globals.
"use strict";

const token = new URLSearchParams(location.search).get("token") || "";
const $ = (id) => document.getElementById(id);

async function api(path, body) {
  const options = { headers: { "X-Judgegrid-Token": token } };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let reply;
  try {
    reply = await fetch(path, options);
  } catch {
    // no answer at all (the browser's own words, "Failed to fetch", say neither why nor what to
    // do): the server was stopped, and a new one has a new token
    throw new Error(
      "the judgegrid server does not answer (was it stopped?); start it again and open the " +
        "address it prints: every answer saved so far is kept"
    );
  }
  const data = await reply.json().catch(() => ({ error: `HTTP ${reply.status}` }));
  if (!reply.ok) throw new Error(data.error || `HTTP ${reply.status}`);
  return data;
}
