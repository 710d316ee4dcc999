// The labelling page of `judgegrid label`. Sample text is only ever set with textContent, never
// as HTML, so a sample holding markup is shown, not run. Every answer is sent at once; the server
// commits it before it replies. `token`, `$` and `api` come from loopback.js, loaded first.
"use strict";

let state = null;
let index = 0;
let ticks = [];

function say(text, isError) {
  $("status").textContent = text;
  $("status").className = isError ? "error" : "";
}

function progress() {
  const done = state.items.filter((i) => i.done).length;
  $("progress").textContent = `${Math.min(index + 1, state.items.length)} of ${state.items.length} · ${done} answered`;
}

function firstOpen(from) {
  for (let k = 0; k < state.items.length; k++) {
    const j = (from + k) % state.items.length;
    if (!state.items[j].done) return j;
  }
  return -1;
}

function showText(id, boxId, text) {
  $(id).textContent = text || "";
  if (boxId) $(boxId).hidden = !text;
}

const OWN_FIELDS = ["user_input", "response", "retrieved_contexts", "reference"];

async function show(k) {
  if (k < 0) return finish();
  index = k;
  const item = state.items[k];
  const metric = state.metrics[item.metric];
  const isPreference = metric.form === "preference";
  // a pairwise criterion: one sample's two answers, A and B in the order this person sees them
  const isPair = isPreference || metric.kind === "pairwise";
  const paths = isPair
    ? [0, 1].map((j) => `/api/pair/${k}/${j}`)
    : [`/api/sample/${encodeURIComponent(item.sample_id)}`];
  const shown = await Promise.all(paths.map((path) => api(path)));
  const sample = shown[0];
  // a preference pair's sample ids would tell which answer the data set prefers: not shown
  $("metric-title").textContent = isPreference
    ? `${metric.title} · pair ${k + 1}`
    : `${metric.title} · ${isPair ? "pair" : "sample"} ${isPair ? item.sample_id : sample.id}`;
  $("question").textContent = metric.question;
  showSteps(metric.steps || []);
  $("reason").textContent = `Why this ${isPair ? "pair" : "sample"}: ${item.reason}`;
  showText("user_input", null, sample.user_input);
  // a pairwise criterion may show a response it does not compare (its view drops compared ones)
  showText("response", "response-box", isPreference ? "" : sample.response);
  $("pair-box").hidden = !isPair;
  if (isPair) {
    const titles = metric.answers || ["Answer 1", "Answer 2"];
    [0, 1].forEach((j) => {
      $(`answer-${j + 1}-title`).textContent = titles[j];
      $(`answer-${j + 1}`).textContent = shown[j].answer || "";
    });
  }
  showText("reference", "reference-box", sample.reference);
  const list = $("contexts");
  list.replaceChildren();
  const isTicks = metric.form === "contexts";
  ticks = sample.retrieved_contexts.map(() => 0);
  sample.retrieved_contexts.forEach((text, n) => {
    const li = document.createElement("li");
    if (isTicks) {
      const label = document.createElement("label");
      const box = document.createElement("input");
      box.type = "checkbox";
      box.id = `tick-${n}`;
      box.addEventListener("change", () => setTick(n, box.checked));
      const span = document.createElement("span");
      span.textContent = text;
      label.append(box, span);
      li.append(label);
    } else {
      li.textContent = text;
    }
    list.append(li);
  });
  // a field the sample lacks has no heading on the page (ResponseRelevancy's samples may have
  // no contexts)
  $("retrieved_contexts-box").hidden = !sample.retrieved_contexts.length;
  $("user_input-box").hidden = !sample.user_input;
  showFields(metric, sample);
  $("scale").hidden = isTicks;
  $("ticks-hint").hidden = !isTicks;
  $("save-ticks").hidden = !isTicks;
  buildScale(metric);
  $("note").value = "";
  say(item.done ? "answered already — a new answer replaces it" : "", false);
  showStates([item.metric]);
  $("item").hidden = false;
  $("finished").hidden = true;
  $("loading").hidden = true;
  progress();
}

// a criterion's person sees what its judge sees: only the fields the criterion names, in its
// order, the data set's extra columns among them under their titles; a metric shows its own
function showFields(metric, sample) {
  const box = $("fields");
  box.querySelectorAll(".extra-box").forEach((section) => section.remove());
  OWN_FIELDS.forEach((name) => box.append($(`${name}-box`)));
  if (!metric.fields) return;
  for (const name of OWN_FIELDS) {
    if (!metric.fields.includes(name)) $(`${name}-box`).hidden = true;
  }
  const extra = sample.extra || {};
  for (const name of metric.fields) {
    if (OWN_FIELDS.includes(name)) {
      box.append($(`${name}-box`));
      continue;
    }
    const section = document.createElement("section");
    section.className = "extra-box";
    section.dataset.field = name;
    const title = document.createElement("h2");
    title.textContent = (metric.titles || {})[name] || name;
    const text = document.createElement("p");
    text.className = "text";
    text.textContent = extra[name] || "";
    section.append(title, text);
    section.hidden = !extra[name];
    box.append(section);
  }
}

function showSteps(steps) {
  $("steps").replaceChildren(
    ...steps.map((text) => {
      const li = document.createElement("li");
      li.textContent = text;
      return li;
    })
  );
  $("steps").hidden = !steps.length;
}

// a criterion of the user's own: one button per answer it allows (yes/no, each label, each level
// of the scale with its description); the value sent is the answer's score
function buildChoices(metric) {
  const positions = metric.kind === "pairwise" && !metric.choices.some((c) => typeof c.value === "number");
  $("scale").className = positions ? "positions" : "";
  $("scale").replaceChildren(
    ...metric.choices.map((choice, n) => {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "choice";
      button.dataset.value = String(choice.value);
      // the key (its place) before the answer, unless they are one: level 3 of a 1..5 scale;
      // A, tie and B answer to their own letters
      const key = positions ? POSITION_KEYS[choice.value] : String(n + 1);
      if (positions) button.textContent = choice.text;
      else button.textContent = choice.text === key ? choice.text : `${key} · ${choice.text}`;
      // A and B name themselves: their key is the hint, not a description
      const hint = positions ? `key ${key}` : choice.description;
      if (hint) {
        const small = document.createElement("small");
        small.textContent = hint;
        button.append(small);
      }
      button.addEventListener("click", () => answer({ value: choice.value }));
      return button;
    })
  );
  $("keys-answer").textContent = positions
    ? metric.choices.map((c) => POSITION_KEYS[c.value]).join(" / ") + " answer"
    : `1–${metric.choices.length} answer`;
}

// a pairwise criterion's answers by key: a, b, and t for the tie
const POSITION_KEYS = { A: "a", tie: "t", B: "b" };

function buildScale(metric) {
  $("scale").className = ""; // a pairwise criterion's layout, left from the item before
  if (metric.form === "choices") return buildChoices(metric);
  $("keys-answer").textContent = "1–5 answer 0, .25, .5, .75, 1 (or tick contexts)";
  if (metric.form === "preference") {
    $("scale").replaceChildren(
      ...[0, 1].map((choice) => {
        const button = document.createElement("button");
        button.type = "button";
        button.dataset.choice = String(choice);
        button.textContent = `${choice + 1} · answer ${choice + 1} is better`;
        button.addEventListener("click", () => answer({ choice }));
        return button;
      })
    );
    return;
  }
  // the question's own ends under 0, 0.5 and 1 ("none … all", "not at all … fully"): every
  // metric answered on the scale names them (metric_view's anchors)
  const [low, middle, high] = metric.anchors;
  const words = [low, "", middle, "", high];
  $("scale").replaceChildren(
    ...metric.scale.map((value, n) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.value = String(value);
      button.textContent = `${n + 1} · ${value}`;
      if (words[n]) {
        const small = document.createElement("small");
        small.textContent = words[n];
        button.append(small);
      }
      button.addEventListener("click", () => answer({ value }));
      return button;
    })
  );
}

function setTick(n, on) {
  ticks[n] = on ? 1 : 0;
  const box = $(`tick-${n}`);
  if (box) box.checked = on;
  $("contexts").children[n].classList.toggle("useful", on);
}

async function answer(payload) {
  const item = state.items[index];
  const body = { sample_id: item.sample_id, metric: item.metric, note: $("note").value, ...payload };
  try {
    const saved = await api("/api/label", body);
    item.done = true;
    if (saved.items) state.items = saved.items; // the next batch, drawn from the labels so far
    state.states[item.metric] = saved.state || "";
    say(saved.value === null ? "skipped" : `saved: ${savedText(item, saved.value)}`, false);
    await show(firstOpen(index + 1));
  } catch (err) {
    say(`not saved: ${err.message}`, true);
  }
}

function savedText(item, value) {
  const metric = state.metrics[item.metric];
  const choice = (metric.choices || []).find((c) => c.value === value);
  return choice ? choice.text : value.toFixed(2);
}

// where labelling stands for each metric shown: the server words it blind (no judge named, no
// score) unless the judges are shown or the queue is done
function showStates(metrics) {
  const lines = metrics
    .filter((m) => (state.states || {})[m])
    .map((m) => `${state.metrics[m].title}: ${state.states[m]}`);
  $("state-line").textContent = lines.join("\n");
  $("state-line").hidden = !lines.length;
}

async function finish() {
  try {
    state.states = (await api("/api/state")).states; // the queue is done: the judges named
  } catch (err) {
    say(`cannot load the state: ${err.message}`, true);
  }
  showStates(Object.keys(state.metrics));
  $("item").hidden = true;
  $("finished").hidden = false;
  $("loading").hidden = true;
  const done = state.items.filter((i) => i.done).length;
  $("finished-text").textContent =
    `${done} of ${state.items.length} answered and saved in ${state.path}/run.sqlite. ` +
    `Close this page and run: judgegrid report ${state.path}`;
  $("progress").textContent = `all done · ${done} answered`;
}

document.addEventListener("keydown", (event) => {
  if (!state || $("item").hidden) return;
  if (event.target === $("note")) {
    if (event.key === "Escape") $("note").blur();
    return;
  }
  const metric = state.metrics[state.items[index].metric];
  const digit = Number.parseInt(event.key, 10);
  if (metric.form === "contexts") {
    if (digit >= 1 && digit <= ticks.length) setTick(digit - 1, !ticks[digit - 1]);
    else if (event.key === "Enter") answer({ useful: ticks });
  } else if (metric.form === "preference") {
    if (digit === 1 || digit === 2) answer({ choice: digit - 1 });
  } else if (metric.form === "choices") {
    const byLetter = metric.choices.find((c) => POSITION_KEYS[c.value] === event.key.toLowerCase());
    if (metric.kind === "pairwise" && byLetter) answer({ value: byLetter.value });
    else if (digit >= 1 && digit <= metric.choices.length) answer({ value: metric.choices[digit - 1].value });
  } else if (digit >= 1 && digit <= metric.scale.length) {
    answer({ value: metric.scale[digit - 1] });
  }
  if (event.key === "s") answer({ skip: true });
  if (event.key === "ArrowRight") show((index + 1) % state.items.length);
  if (event.key === "ArrowLeft") show((index - 1 + state.items.length) % state.items.length);
});

$("skip").addEventListener("click", () => answer({ skip: true }));
$("save-ticks").addEventListener("click", () => answer({ useful: ticks }));
$("next").addEventListener("click", () => show((index + 1) % state.items.length));
$("prev").addEventListener("click", () => show((index - 1 + state.items.length) % state.items.length));

(async () => {
  try {
    state = await api("/api/state");
    $("run").textContent = `run ${state.run}`;
    $("annotator").textContent = `annotator: ${state.annotator}`;
    $("mode").textContent = state.blind
      ? "· blind: the judges' ratings stay hidden until the report"
      : "· judges shown (--show-judges)";
    if (!state.items.length) {
      $("loading").textContent = "Nothing to label: every sample of this run is answered (or none was scored).";
      return;
    }
    await show(firstOpen(0));
  } catch (err) {
    $("loading").textContent = `Cannot load: ${err.message}`;
  }
})();
