// The pages of `judgegrid view`. Every text of a sample or a judge is set with textContent,
// never as HTML, so a sample holding markup is shown, not run. The server pages the samples:
// the browser holds one page of the grid and one sample at a time. `token`, `$` and `api` come
// from loopback.js, loaded first.
"use strict";

let meta = null;
let list = { ids: [], filters: null, page: 1, pages: 1 }; // the Samples page last shown
let current = { sample: null, metric: null, row: -1, probe: false };
let shown = 0; // the route being drawn: an older route's late answer draws nothing

// An element with text (never HTML) and children.
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (key === "text") node.textContent = value == null ? "" : String(value);
    else if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children) if (child != null) node.append(child);
  return node;
}

function say(text) {
  $("status").textContent = text;
  $("status").classList.toggle("shown", Boolean(text));
}

function fmt(x, digits = 2) {
  return x == null ? "–" : Number(x).toFixed(digits);
}

// red (0) through yellow to green (1), light enough to read black text on
function colour(mean) {
  return mean == null ? "#f0f0f0" : `hsl(${Math.round(120 * mean)}, 65%, 78%)`;
}

function hashRoute() {
  const raw = location.hash.replace(/^#/, "") || "/samples";
  const [path, query] = raw.split("?");
  return { parts: path.split("/").filter(Boolean).map(decodeURIComponent), query: new URLSearchParams(query || "") };
}

function go(path, query) {
  const q = query ? `?${query.toString()}` : "";
  location.hash = `#${path}${q}`;
}

// A page: its title and its parts; a part a page leaves out (null) is not drawn (replaceChildren
// would draw it as the text "null").
function page(title, ...children) {
  $("main").replaceChildren(el("h1", { text: title }), ...children.filter((child) => child != null));
  window.scrollTo(0, 0);
}

function select(id, label, values, chosen, blank) {
  const box = el("select", { id });
  if (blank !== undefined) box.append(el("option", { value: "", text: blank }));
  for (const v of values) {
    const [value, text] = Array.isArray(v) ? v : [v, v];
    const option = el("option", { value, text });
    if (value === chosen) option.selected = true;
    box.append(option);
  }
  return el("label", { for: id }, label, box);
}

// Several values of one filter (judges, embedding models, wordings): a box each, none ticked =
// all. A value may come with its text ([value, text]).
function checks(id, label, values, chosen) {
  const box = el("fieldset", { id, class: "checks" }, el("legend", { text: `${label} (none: all)` }));
  for (const v of values) {
    const [value, text, title] = Array.isArray(v) ? v : [v, v];
    const tick = el("input", { type: "checkbox", value });
    tick.checked = chosen.includes(value);
    box.append(el("label", { class: "check", title: title || "" }, tick, text));
  }
  return box;
}

// -- a criterion of the user's own -------------------------------------------------------------

function criterionOf(metric) {
  const m = meta.metrics.find((x) => x.name === metric);
  return m ? m.criterion : null;
}

// A criterion's score on the colour scale: its lowest score red, its highest green (reversed
// when lower is better).
function shade(mean, crit) {
  if (mean == null || !crit) return mean;
  const span = crit.high - crit.low;
  const x = span ? (mean - crit.low) / span : 1;
  return crit.higher_is_better ? x : 1 - x;
}

function wordingText(crit, k) {
  const w = crit && crit.wordings.find((x) => x.wording === k);
  return w ? w.text : "";
}

// What a criterion's cell got: log-probabilities for each scored repeat, or none where asked.
function weightingWords(cell) {
  const parts = [];
  if (cell.logprobs) parts.push(`${cell.logprobs} weighted by log-probabilities`);
  if (cell.missing) parts.push(`${cell.missing} asked for log-probabilities and got none`);
  return parts.join(", ") || "plain answers";
}

function weightingOf(c) {
  if (c.weighting === "logprobs") return "weighted by log-probabilities";
  if (c.weighting === "missing") return "log-probabilities asked, none came: the plain answer";
  return c.weighting ? "plain answer" : "";
}

// -- Samples -----------------------------------------------------------------------------------

async function showSamples(query, mine) {
  const metric = query.get("metric") || meta.metrics[0].name;
  query.set("metric", metric);
  const data = await api(`/api/view/samples?${query.toString()}`);
  if (mine !== shown) return;
  list = { ids: data.rows.map((r) => r.id), filters: new URLSearchParams(query), page: data.page, pages: data.pages };
  const change = (name) => (event) => {
    const next = new URLSearchParams(query);
    if (event.target.type === "checkbox") {
      next.delete(name);
      for (const tick of controls.querySelectorAll(`#f-${name} input:checked`)) next.append(name, tick.value);
    } else if (event.target.value) next.set(name, event.target.value);
    else next.delete(name);
    if (name === "metric") {
      // wordings are one criterion's; a criterion has no embedding model
      next.delete("wording");
      next.delete("fold");
      const crit = criterionOf(event.target.value);
      if (crit) next.delete("embedding");
      if (next.get("sort") === "wording" && !(crit && crit.wordings.length > 1)) next.delete("sort");
    }
    next.delete("page");
    go("/samples", next);
  };
  const search = el("input", { id: "search", type: "search", placeholder: "text or id  (/)", value: query.get("q") || "" });
  search.addEventListener("keydown", (event) => {
    if (event.key === "Enter") change("q")(event);
    if (event.key === "Escape") search.blur();
  });
  const crit = criterionOf(metric);
  const worded = crit && crit.wordings.length > 1;
  const controls = el(
    "div",
    { class: "controls" },
    select("f-metric", "metric", meta.metrics.map((m) => [m.name, m.criterion ? `${m.title} (criterion, ${m.criterion.type})` : m.title]), metric),
    select("f-sort", "sort by", [["disagreement", "disagreement between judges"], ["instability", "instability across repeats"], ...(worded ? [["wording", "change across wordings"]] : []), ["id", "id"]], query.get("sort") || "disagreement"),
    checks("f-judge", "judges", meta.judges, query.getAll("judge")),
    crit ? null : checks("f-embedding", "embeddings", meta.embeddings, query.getAll("embedding")),
    worded ? checks("f-wording", "wordings", crit.wordings.map((w) => [String(w.wording), w.name, w.text]), query.getAll("wording")) : null,
    worded ? select("f-fold", "wordings shown", [["wording", "folded: one cell per judge"]], query.get("fold") || "", "each in its column") : null,
    select("f-language", "language", meta.languages, query.get("language") || "", "all"),
    select("f-status", "status", meta.statuses, query.get("status") || "", "any"),
    el("label", { for: "search" }, "search", search)
  );
  for (const name of ["metric", "sort", "judge", "embedding", "wording", "fold", "language", "status"]) {
    const control = controls.querySelector(`#f-${name}`);
    if (control) control.addEventListener("change", change(name));
  }
  const head = configHeader(data.columns, [
    el("th", { text: "sample" }),
    el("th", { class: "question", text: "question" }),
    el("th", { text: "judges' gap", title: "largest difference between two judges' means" }),
    el("th", { text: "worst SD", title: "largest SD of the repeats of one configuration" }),
    worded ? el("th", { text: "wordings' gap", title: "largest difference between two wordings' means of one judge" }) : null,
  ].filter(Boolean));
  const rows = data.rows.map((row, k) =>
    el(
      "tr",
      { class: row.probe ? "row probe" : "row", "data-id": row.id, onclick: () => openSample(k) },
      el("td", { class: "sample-id", text: row.id }),
      el("td", { class: "question" }, row.probe ? probeTag(row.probe) : null, el("span", { class: "question-text", text: row.question })),
      el("td", { class: "num", text: fmt(row.disagreement) }),
      el("td", { class: "num", text: fmt(row.instability) }),
      worded ? el("td", { class: "num wording-gap", text: fmt(row.wording_gap) }) : null,
      ...row.cells.map((cell, j) => (crit ? answerTd(cell, data.columns[j], crit) : cellTd(cell, data.columns[j])))
    )
  );
  const table = el("div", { class: "wide" }, el("table", { id: "grid" }, el("thead", {}, ...head), el("tbody", {}, ...rows)));
  const note = crit
    ? `Cells: the judge's answer (most frequent over the scored repeats; "a/b" when two tie), its score below ` +
      `(mean of the repeats, ${crit.low} to ${crit.high}; colour: red lowest → green highest), ≈ marks scores weighted by ` +
      `log-probabilities, ⚠ repeats that asked for them and got none. A red frame marks failed repeats (✗), stripes skipped ones.`
    : "Cells: mean of the scored repeats (colour: red 0 → green 1), ± SD of the repeats; a red frame marks failed repeats (✗), stripes skipped ones.";
  page(`Samples · ${data.total} · ${meta.metrics.find((m) => m.name === metric).title}`, controls, crit ? criterionBox(crit, query.getAll("wording"), query.get("fold")) : null, pager(data, query), table,
    el("p", { class: "note", text: note }));
  current.row = -1;
}

// A probe's mark in the grid: which probe, its kind and base on hover.
function probeTag(probe) {
  return el("span", { class: "probe-tag", text: `probe · ${probe.name}`, title: `a ${probe.kind} probe of ${probe.base}` });
}

// Two header rows: each judge once over its configurations, then what sets each configuration
// apart (embedding, dimension, strictness), upright and short; the full name on hover.
function configHeader(columns, fixed) {
  const groups = [];
  for (const c of columns) {
    const last = groups[groups.length - 1];
    if (last && last.judge === c.judge) last.span += 1;
    else groups.push({ judge: c.judge, span: 1 });
  }
  for (const th of fixed) th.setAttribute("rowspan", "2");
  const judges = groups.map((g) => el("th", { class: "judge", colspan: String(g.span), text: g.judge, title: g.judge }));
  const rest = (c) => (c.label.startsWith(`${c.judge} · `) ? c.label.slice(c.judge.length + 3) : "");
  const configs = columns.map((c) => el("th", { class: "config", title: c.label }, el("span", { class: "upright", text: rest(c) })));
  return [el("tr", {}, ...fixed, ...judges), el("tr", {}, ...configs)];
}

function cellTd(cell, column) {
  if (!cell) return el("td", { class: "cell", text: "" });
  const td = el("td", { class: "cell", title: `${column.label}: ${cell.scored} scored, ${cell.failed} failed, ${cell.skipped} skipped of ${cell.n}` });
  td.style.backgroundColor = colour(cell.mean);
  td.append(el("span", { text: fmt(cell.mean) }));
  if (cell.sd != null) td.append(el("small", { text: `±${fmt(cell.sd)}` }));
  if (cell.failed) {
    td.classList.add("failed");
    td.append(el("small", { text: `✗${cell.failed}` }));
  }
  if (cell.skipped) td.classList.add("skipped");
  return td;
}

// A criterion's cell: the answer the judge gave, its score and how it was weighted.
function answerTd(cell, column, crit) {
  if (!cell) return el("td", { class: "cell", text: "" });
  const given = cell.answers.map(([name, k]) => `${name} ×${k}`).join(", ") || "none";
  const title = `${column.label}: ${cell.scored} scored, ${cell.failed} failed, ${cell.skipped} skipped of ${cell.n}; ` +
    `answers ${given}; ${weightingWords(cell)}`;
  const td = el("td", { class: "cell answer-cell", title });
  td.style.backgroundColor = colour(shade(cell.mean, crit));
  const tied = cell.answers.length && cell.answer == null;
  const top = cell.answers.length ? Math.max(...cell.answers.map(([, k]) => k)) : 0;
  const shown = tied ? cell.answers.filter(([, k]) => k === top).map(([name]) => name).join("/") : cell.answer;
  td.append(el("span", { class: "answer", text: shown == null ? "–" : shown }));
  const weighted = cell.logprobs ? "≈" : "";
  td.append(el("small", { text: `${weighted}${fmt(cell.mean)}${cell.sd != null ? ` ±${fmt(cell.sd)}` : ""}` }));
  if (cell.missing) td.append(el("small", { class: "missing", text: `⚠${cell.missing}` }));
  if (cell.failed) {
    td.classList.add("failed");
    td.append(el("small", { text: `✗${cell.failed}` }));
  }
  if (cell.skipped) td.classList.add("skipped");
  return td;
}

// The criterion above its grid: its type and answers, each wording (the ones shown marked).
function criterionBox(crit, chosen, fold) {
  const shown = (w) => !chosen.length || chosen.includes(String(w.wording));
  return el(
    "section",
    { id: "criterion", class: "criterion" },
    el("p", {}, el("strong", { text: `${crit.type}: ` }), el("span", { text: crit.answers.join(" · ") }),
      el("span", { class: "note", text: ` · weighting ${crit.weighting}${fold ? " · wordings folded into one cell per judge" : ""}` })),
    el("ol", { start: "0", class: "wordings" }, ...crit.wordings.map((w) =>
      el("li", { class: shown(w) ? "wording" : "wording hidden-wording", "data-wording": String(w.wording) },
        el("strong", { text: `${w.name}: ` }), el("span", { text: w.text }))))
  );
}

function pager(data, query) {
  const to = (n) => () => {
    const next = new URLSearchParams(query);
    next.set("page", String(n));
    go("/samples", next);
  };
  return el(
    "div",
    { class: "pager" },
    el("button", { id: "page-prev", type: "button", onclick: to(Math.max(1, data.page - 1)) }, "← previous"),
    el("span", { id: "page-of", text: `page ${data.page} of ${data.pages}` }),
    el("button", { id: "page-next", type: "button", onclick: to(Math.min(data.pages, data.page + 1)) }, "next →")
  );
}

function openSample(k) {
  const id = list.ids[k];
  if (id === undefined) return;
  current.row = k;
  go(`/sample/${encodeURIComponent(id)}`, new URLSearchParams({ metric: list.filters.get("metric") }));
}

// -- Sample ------------------------------------------------------------------------------------

function fields(f) {
  const out = [el("h2", { text: "Question" }), el("p", { class: "text", id: "f-user_input", text: f.user_input || "" })];
  if (f.response != null) out.push(el("h2", { text: "Response" }), el("p", { class: "text", id: "f-response", text: f.response }));
  if (f.retrieved_contexts.length)
    out.push(el("h2", { text: "Contexts (rank order)" }), el("ol", { id: "f-contexts" }, ...f.retrieved_contexts.map((c) => el("li", { class: "text", text: c }))));
  if (f.reference != null) out.push(el("h2", { text: "Reference" }), el("p", { class: "text", id: "f-reference", text: f.reference }));
  for (const [name, text] of Object.entries(f.extra || {})) out.push(el("h2", { text: name }), el("p", { class: "text extra", text }));
  if (f.language) out.push(el("p", { class: "note", text: `language: ${f.language}` }));
  return el("section", { id: "fields" }, ...out);
}

function verdictText(v) {
  return v === 1 ? "✓ yes" : v === 0 ? "✗ no" : "";
}

// A row's verdict as shown: a criterion's answer (pass, the label, the level), else yes/no.
function rowVerdict(r) {
  return r.answer != null ? r.answer : verdictText(r.verdict);
}

function itemsTable(rows, crit) {
  if (!rows.length) return el("p", { class: "note", text: "no intermediate answers kept" });
  return el(
    "table",
    { class: "items" },
    el("tr", {}, el("th", { text: crit ? "answer / vote / probability" : "statement / question / context" }), el("th", { text: "verdict" }), el("th", { text: "reason" })),
    ...rows.map((r) =>
      el("tr", {}, el("td", { class: "item-text", text: r.text }), el("td", { class: `verdict-${r.verdict}`, text: rowVerdict(r) }), el("td", { text: [r.reason, r.note].filter(Boolean).join(" · ") }))
    )
  );
}

function usage(c) {
  const cost = c.cost == null ? "cost unknown" : `$${Number(c.cost).toFixed(6)}`;
  return el("p", { class: "usage", text: `${c.calls} calls · ${c.tokens_in} tokens in, ${c.tokens_out} out · ${cost} · ${fmt(c.latency_s, 2)} s` });
}

async function showSample(id, query, mine) {
  const metric = query.get("metric") || meta.metrics[0].name;
  const data = await api(`/api/view/sample/${encodeURIComponent(id)}?metric=${encodeURIComponent(metric)}`);
  if (mine !== shown) return;
  current.sample = id;
  current.metric = metric;
  current.probe = Boolean(data.probe);
  if (current.row < 0) current.row = list.ids.indexOf(id);
  const groups = new Map();
  for (const cell of data.cells) {
    if (!groups.has(cell.config)) groups.set(cell.config, []);
    groups.get(cell.config).push(cell);
  }
  const crit = data.criterion;
  const boxes = [...groups.values()].map((cells) =>
    el(
      "section",
      { class: "config-box", "data-config": cells[0].config },
      el("h3", { text: cells[0].label }),
      crit ? el("p", { class: "wording-text", text: `asked: ${cells[0].wording_text}` }) : null,
      ...cells.map((c) =>
        el(
          "div",
          { class: "repeat" },
          el("span", { text: `repeat ${c.repeat + 1} · ` }),
          crit && c.answer != null ? el("span", { class: "answer", text: `${c.answer} · ` }) : null,
          el("span", { class: "score", text: c.status === "scored" ? fmt(c.score, 3) : "" }),
          el("span", { class: `status-${c.status}`, text: ` ${c.status}` }),
          crit && c.weighting ? el("span", { class: `weighting weighting-${c.weighting}`, text: ` · ${weightingOf(c)}` }) : null,
          // a criterion's reason is on its answer's row
          c.error || (c.reason && !crit) ? el("p", { class: "cause", text: c.error || c.reason }) : null,
          itemsTable(c.items, crit),
          c.raw ? el("details", {}, el("summary", { text: "the raw reply" }), el("pre", { text: c.raw })) : null,
          usage(c)
        )
      )
    )
  );
  // a probe is scored by its own metric only
  const metrics = data.probe ? meta.metrics.filter((m) => m.name === data.probe.metric) : meta.metrics;
  const metricLinks = el("div", { class: "controls" }, select("s-metric", "metric", metrics.map((m) => [m.name, m.title]), metric));
  metricLinks.querySelector("#s-metric").addEventListener("change", (event) => go(`/sample/${encodeURIComponent(id)}`, new URLSearchParams({ metric: event.target.value })));
  const configs = [...groups.values()].map((cells) => [cells[0].config, cells[0].label]);
  const repeats = [...new Set(data.cells.map((c) => c.repeat))].sort((a, b) => a - b);
  const judges = [...new Set(data.cells.map((c) => c.judge))];
  const other = configs.find((c) => c[0].split("|")[0] !== (configs[0] || [""])[0].split("|")[0]) || configs[1] || configs[0];
  const compareBox = el(
    "div",
    { class: "controls", id: "compare-form" },
    select("cmp-a", "configuration A", configs, (configs[0] || [])[0]),
    select("cmp-b", "configuration B", configs, (other || [])[0]),
    select("cmp-repeat", "repeat", repeats.map((r) => [String(r), String(r + 1)]), "0"),
    el("button", { id: "compare", type: "button", onclick: () => {
      go(`/compare/${encodeURIComponent(id)}`, new URLSearchParams({ metric, a: $("cmp-a").value, b: $("cmp-b").value, repeat: $("cmp-repeat").value }));
    } }, "Side by side"),
    data.probe ? null : el("button", { id: "label-this", type: "button", onclick: () => label() }, "Label this sample (l)")
  );
  const calls = judges.map((judge) => {
    const box = el("details", { class: "calls", "data-judge": judge }, el("summary", { text: `Prompts and replies of judge ${judge}` }));
    box.addEventListener("toggle", () => { if (box.open && box.children.length === 1) loadCalls(box, id, judge, 1); });
    return box;
  });
  page(`Sample ${data.id} · ${data.title}`, metricLinks, compareBox, data.probe ? probeBox(data.probe, metric) : null,
    crit ? criterionBox(crit, [], null) : null, fields(data.fields), el("h2", { text: "Each configuration and repeat" }), ...boxes,
    el("h2", { text: "Calls" }), el("p", { class: "note", text: "The judge calls whose prompt holds this sample's question, response or first context." }), ...calls);
}

// A probe: what it is, which way its score must move and why that is known, its base (a link,
// with the base's question), each field it changed, and the base's scores beside its own.
function probeBox(probe, metric) {
  const base = `#/sample/${encodeURIComponent(probe.base)}?metric=${encodeURIComponent(metric)}`;
  return el(
    "section",
    { id: "probe", class: "probe" },
    el("h2", { text: `A ${probe.kind} probe: ${probe.name}` }),
    el("p", {}, el("strong", { text: `This probe ${probe.expected}. ` }), el("span", { text: `Why: ${probe.why}.` })),
    el("p", {}, el("span", { text: "Its base: " }), el("a", { class: "base", href: base, text: probe.base }),
      probe.base_question ? el("span", { class: "base-question", text: ` · asked: ${probe.base_question}` }) : null),
    probe.fallback ? el("p", { class: "note", text: `Its templates are English: the sample's language has none of its own (${probe.language}).` }) : null,
    el("h3", { text: "What the probe changed" }),
    probe.changes.length ? el("div", { class: "changes" }, ...probe.changes.map(change)) : el("p", { class: "note", text: "nothing: it holds its base's texts" }),
    el("h3", { text: "Scores: its base's beside its own" }),
    probeScores(probe.scores)
  );
}

// One field a probe changed: what it added to the base's text, or both texts side by side.
function change(c) {
  const title = el("strong", { text: c.title });
  if (c.added) return el("p", { class: "change", "data-field": c.field }, title, el("span", { text: " · added: " }), el("span", { class: "added", text: c.added }));
  const shownText = (t) => (Array.isArray(t) ? el("ol", {}, ...t.map((x) => el("li", { class: "text", text: x }))) : el("p", { class: "text", text: t == null ? "(none)" : t }));
  return el(
    "div",
    { class: "change", "data-field": c.field },
    title,
    el("div", { class: "sides" }, el("div", {}, el("span", { class: "note", text: "base" }), shownText(c.base)), el("div", {}, el("span", { class: "note", text: "probe" }), shownText(c.probe)))
  );
}

function probeScores(rows) {
  const signed = (x) => (x == null ? "–" : `${x > 0 ? "+" : ""}${fmt(x)}`);
  return el(
    "table",
    { id: "probe-scores" },
    el("thead", {}, el("tr", {}, el("th", { text: "configuration" }), el("th", { text: "base" }), el("th", { text: "probe" }), el("th", { text: "change" }))),
    el("tbody", {}, ...rows.map((r) => el("tr", { "data-config": r.config }, el("td", { text: r.label }), el("td", { class: "num", text: fmt(r.base) }),
      el("td", { class: "num", text: fmt(r.probe) }), el("td", { class: "num", text: signed(r.change) }))))
  );
}

async function loadCalls(box, id, judge, n) {
  const data = await api(`/api/view/calls/${encodeURIComponent(id)}?judge=${encodeURIComponent(judge)}&page=${n}`);
  for (const c of data.calls) {
    const cost = c.cost == null ? "cost unknown" : `$${Number(c.cost).toFixed(6)}`;
    box.append(
      el(
        "details",
        { class: "call" },
        el("summary", { text: `${c.step || "?"} · attempt ${c.attempt} · ${c.status}${c.error ? ` (${c.error})` : ""} · ${c.tokens_in}+${c.tokens_out} tokens · ${cost} · ${fmt(c.latency_s)} s` }),
        el("h3", { text: "prompt" }),
        el("pre", { text: prettyRequest(c.request) }),
        el("h3", { text: "reply" }),
        el("pre", { text: c.response || "" })
      )
    );
  }
  if (data.page < data.pages) {
    const more = el("button", { type: "button", text: `more (${data.total - data.page * 20} left)` });
    more.addEventListener("click", () => { more.remove(); loadCalls(box, id, judge, data.page + 1); });
    box.append(more);
  }
  if (!data.total) box.append(el("p", { class: "note", text: "no call of this judge names this sample's texts" }));
}

function prettyRequest(text) {
  try {
    const messages = JSON.parse(text);
    if (Array.isArray(messages)) return messages.map((m) => `[${m.role}]\n${m.content}`).join("\n\n");
    if (messages && Array.isArray(messages.messages)) return messages.messages.map((m) => `[${m.role}]\n${m.content}`).join("\n\n");
    return JSON.stringify(messages, null, 2);
  } catch (err) {
    return text;
  }
}

// -- side by side ------------------------------------------------------------------------------

function side(cell) {
  return el(
    "div",
    { class: "config-box" },
    el("h3", { text: cell.label }),
    cell.wording_text ? el("p", { class: "wording-text", text: `asked: ${cell.wording_text}` }) : null,
    cell.answer != null ? el("span", { class: "answer", text: `${cell.answer} · ` }) : null,
    el("span", { class: "score", text: cell.status === "scored" ? fmt(cell.score, 3) : "" }),
    el("span", { class: `status-${cell.status}`, text: ` ${cell.status}` }),
    cell.weighting ? el("span", { class: `weighting weighting-${cell.weighting}`, text: ` · ${weightingOf(cell)}` }) : null,
    cell.reason || cell.error ? el("p", { class: "cause", text: cell.error || cell.reason }) : null,
    usage(cell)
  );
}

async function showCompare(id, query, mine) {
  const data = await api(`/api/view/compare/${encodeURIComponent(id)}?${query.toString()}`);
  if (mine !== shown) return;
  current.sample = id;
  current.metric = data.metric;
  const mark = (r) => (r.only === "a" ? "only in A" : r.only === "b" ? "only in B" : r.differs ? (r.a.answer != null ? "answers differ" : "verdicts differ") : "");
  const rows = data.rows.map((r) =>
    el(
      "tr",
      { class: `cmp ${r.only ? `only-${r.only}` : ""} ${r.differs ? "differs" : ""}` },
      el("td", { class: "item-text", text: r.text }),
      el("td", { class: `verdict-${r.a ? r.a.verdict : ""}`, text: r.a ? rowVerdict(r.a) : "—" }),
      el("td", { text: r.a ? [r.a.reason, r.a.note].filter(Boolean).join(" · ") : "" }),
      el("td", { class: `verdict-${r.b ? r.b.verdict : ""}`, text: r.b ? rowVerdict(r.b) : "—" }),
      el("td", { text: r.b ? [r.b.reason, r.b.note].filter(Boolean).join(" · ") : "" }),
      el("td", { class: "mark", text: mark(r) })
    )
  );
  const differences = data.rows.filter((r) => r.only || r.differs).length;
  page(
    `Side by side · ${data.id} · ${data.title} · repeat ${data.repeat + 1}`,
    el("p", {}, el("a", { href: `#/sample/${encodeURIComponent(id)}?metric=${encodeURIComponent(data.metric)}`, text: "← back to the sample" })),
    el("div", { class: "sides" }, side(data.a), side(data.b)),
    el("p", { id: "differences", text: `${differences} of ${data.rows.length} rows differ` }),
    el(
      "div",
      { class: "wide" },
      el(
        "table",
        { id: "compare-table" },
        el("tr", {}, el("th", { text: data.criterion ? "answer / vote / probability" : "statement / question / context" }), el("th", { text: `A: ${data.a.label}` }), el("th", { text: "A's reason" }), el("th", { text: `B: ${data.b.label}` }), el("th", { text: "B's reason" }), el("th", { text: "difference" })),
        ...rows
      )
    ),
    fields(data.fields)
  );
}

// -- Decision ----------------------------------------------------------------------------------

async function showDecision(mine) {
  const data = await api("/api/view/decision");
  if (mine !== shown) return;
  if (!data.card.length) return page("Decision", el("p", { class: "note", text: data.note || "no card" }));
  page(
    "Decision",
    data.note ? el("p", { id: "card-note", class: "note", text: data.note }) : null,
    el("div", { id: "card", class: "decisions" }, ...data.card.map(decisionBlock)),
    el("p", {
      class: "note",
      text:
        "Basis, strongest first: people (labels), preference pairs or designed contrasts, probes, " +
        "other judges (agreement only), nothing measurable. " +
        "Dots: each judge's figure with its 95% interval; dashed: chance; green: the chosen judge (filled) and " +
        "those not separated from it (hollow). The card as `judgegrid report` wrote it (tables/decision_card.csv).",
    })
  );
}

// One metric: the verdict as a badge, basis, figure and flags as chips, the forest plot, and the
// full reason behind a disclosure.
function decisionBlock(r) {
  const named = r.badge !== "no verdict";
  const chips = [el("span", { class: "chip", text: `basis: ${r.basis}` }), el("span", { class: "chip", text: r.figure })];
  if (r.criterion) {
    const n = r.criterion.wordings.length;
    chips.unshift(el("span", { class: "chip criterion-chip", text: `criterion · ${r.criterion.type}${n > 1 ? ` · ${n} wordings` : ""} · weighting ${r.criterion.weighting}` }));
  }
  for (const flag of r.flags) chips.push(el("span", { class: "chip flag", text: flag }));
  // where labelling stands (the labelling page's line, the judges named), as report.html shows it
  if (r.label_state) chips.push(el("span", { class: "chip", text: `labelling: ${r.label_state}` }));
  return el(
    "section",
    { class: "decision", "data-metric": r.metric },
    el("h2", {}, el("span", { text: r.metric }), el("span", { class: named ? "badge named" : "badge none", text: r.badge })),
    el("div", { class: "chips" }, ...chips),
    r.criterion ? criterionJudges(r) : null,
    r.forest ? el("img", { class: "forest", src: r.forest, alt: `each judge's ${r.basis} figure with its interval` }) : null,
    el(
      "details",
      {},
      el("summary", { text: "why, and the next step" }),
      el("p", { text: `${r.verdict}: ${r.reason}` }),
      el("p", {}, el("span", { text: "next: " }), el("code", { text: r.next_step })),
      r.detail ? el("p", { class: "note", text: r.detail }) : null
    )
  );
}

// A criterion's judges on the Decision page: whether each one's answer changes with the wording
// (the report's count and flag) and how many of its cells were weighted by log-probabilities.
function criterionJudges(r) {
  const crit = r.criterion;
  const worded = crit.wordings.length > 1;
  const weighted = crit.weighting !== "none";
  if (!worded && !weighted) return el("p", { class: "note definition", text: `asked: ${crit.definition}` });
  const head = [el("th", { text: "judge" })];
  if (worded) head.push(el("th", { text: "answer changes with the wording" }));
  if (weighted) head.push(el("th", { text: "cells with log-probabilities" }));
  const rows = (r.judges || []).map((j) => {
    const cells = [el("td", { text: j.judge })];
    if (worded) {
      const text = j.samples == null ? "–" : `${j.changed} of ${j.samples} samples${j.flagged ? " ⚑ flagged" : ""}`;
      cells.push(el("td", { class: j.flagged ? "flagged" : "", text }));
    }
    if (weighted) {
      const text = j.cells == null ? "–" : `${j.logprobs} of ${j.cells}${j.without_logprobs ? ` (${j.without_logprobs} without)` : ""}`;
      cells.push(el("td", { class: j.without_logprobs ? "flagged" : "", text }));
    }
    return el("tr", { "data-judge": j.judge }, ...cells);
  });
  return el("div", {}, el("p", { class: "note definition", text: `asked: ${crit.definition}` }),
    el("table", { class: "criterion-judges" }, el("tr", {}, ...head), ...rows));
}

// -- moving about ------------------------------------------------------------------------------

async function label() {
  if (!current.sample) return say("open a sample first, then press l to label it");
  if (current.probe) return say("a probe is not labelled: people label the data set's own samples");
  await api("/api/view/label", { sample_id: current.sample, metric: current.metric });
  location.assign(`${meta.label_path}?token=${encodeURIComponent(token)}`);
}

async function step(delta) {
  const route = hashRoute();
  if (route.parts[0] === "samples") {
    const rows = document.querySelectorAll("tr.row");
    if (!rows.length) return;
    current.row = Math.max(0, Math.min(rows.length - 1, current.row + delta));
    rows.forEach((r, k) => r.classList.toggle("current", k === current.row));
    rows[current.row].scrollIntoView({ block: "nearest" });
    return;
  }
  if (!list.filters) {
    list.filters = new URLSearchParams({ metric: current.metric || meta.metrics[0].name });
    const data = await api(`/api/view/samples?${list.filters.toString()}`);
    list = { ids: data.rows.map((r) => r.id), filters: list.filters, page: data.page, pages: data.pages };
    current.row = list.ids.indexOf(current.sample);
  }
  let k = current.row + delta;
  if (k >= list.ids.length && list.page < list.pages) return turnPage(list.page + 1, 0);
  if (k < 0 && list.page > 1) return turnPage(list.page - 1, -1);
  k = Math.max(0, Math.min(list.ids.length - 1, k));
  openSample(k);
}

async function turnPage(n, at) {
  const query = new URLSearchParams(list.filters);
  query.set("page", String(n));
  const data = await api(`/api/view/samples?${query.toString()}`);
  list = { ids: data.rows.map((r) => r.id), filters: query, page: data.page, pages: data.pages };
  openSample(at < 0 ? list.ids.length - 1 : at);
}

document.addEventListener("keydown", (event) => {
  if (!meta || event.ctrlKey || event.metaKey || event.altKey) return;
  const typing = ["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName);
  if (typing) return;
  const route = hashRoute();
  if (event.key === "j") step(1);
  else if (event.key === "k") step(-1);
  else if (event.key === "Enter" && route.parts[0] === "samples" && current.row >= 0) openSample(current.row);
  else if (event.key === "/") {
    event.preventDefault();
    if (route.parts[0] === "samples") $("search").focus();
    else go("/samples", list.filters ? new URLSearchParams(list.filters) : undefined);
  } else if (event.key === "l") label().catch((err) => say(`cannot label: ${err.message}`));
});

async function route() {
  say("");
  const { parts, query } = hashRoute();
  const mine = ++shown;
  try {
    if (parts[0] === "sample" && parts[1] !== undefined) await showSample(parts[1], query, mine);
    else if (parts[0] === "compare" && parts[1] !== undefined) await showCompare(parts[1], query, mine);
    else if (parts[0] === "decision") await showDecision(mine);
    else await showSamples(query, mine);
  } catch (err) {
    say(`cannot show this: ${err.message}`);
  }
}

(async () => {
  try {
    meta = await api("/api/view/meta");
  } catch (err) {
    $("loading").textContent = `Cannot load: ${err.message}`;
    return;
  }
  $("run").textContent = `run ${meta.run}`;
  $("nav-label").href = `${meta.label_path}?token=${encodeURIComponent(token)}`;
  $("nav-label").addEventListener("click", (event) => {
    if (current.sample) {
      event.preventDefault();
      label().catch((err) => say(`cannot label: ${err.message}`));
    }
  });
  window.addEventListener("hashchange", route);
  await route();
})();
