// The gallery of a TableTest render folder: filters and pages over data/index.js, details from
// data/details-NNNNN.js on a click. Data arrive as scripts (a page opened from disk may not fetch JSON).
"use strict";

const PALETTE = ["#e6194b", "#3cb44b", "#0082c8", "#f58231", "#911eb4", "#46f0f0", "#f032e6", "#d2f53c", "#fabebe", "#008080"];
const HIDDEN = "#a0a0a0";
const EDGES = [[0, 1], [1, 2], [2, 3], [3, 0], [4, 5], [5, 6], [6, 7], [7, 4], [0, 4], [1, 5], [2, 6], [3, 7]];
const state = { index: null, matches: [], page: 0, details: {}, waiting: null };
const $ = (id) => document.getElementById(id);

function tabletestIndex(doc) {
  state.index = doc;
  const v = doc.vocab, s = doc.scenes;
  fill("f-object", v.objects.map((name, k) => [k, name]).sort((a, b) => a[1].localeCompare(b[1])));
  fill("f-n", [...new Set(s.n)].sort((a, b) => a - b).map((n) => [n, n]));
  fill("f-relation", v.relations.map((name, k) => [k, name]));
  fill("f-family", v.families.map((name, k) => [k, name]));
  fill("f-verify", v.verify.map((name, k) => [k, name]));
  for (const select of document.querySelectorAll("#filters select")) select.addEventListener("change", () => filter());
  $("prev").addEventListener("click", () => show(state.page - 1));
  $("next").addEventListener("click", () => show(state.page + 1));
  $("close").addEventListener("click", () => { $("detail").hidden = true; });
  window.addEventListener("hashchange", fromLink);
  fromLink();
}

// A link can name filters and a scene: index.html#object=mug&family=random&id=rnd0-0000007 (by their words).
function fromLink() {
  const wanted = new URLSearchParams(location.hash.slice(1));
  for (const [key, id] of [["object", "f-object"], ["objects", "f-n"], ["relation", "f-relation"], ["family", "f-family"],
                           ["hidden", "f-hidden"], ["verify", "f-verify"]]) {
    const option = [...$(id).options].find((o) => o.text === wanted.get(key));
    $(id).value = option ? option.value : "";  // a filter the link does not name is "any"
  }
  filter();
  const k = state.index.scenes.id.indexOf(wanted.get("id"));
  if (k >= 0) open(k);
}

function fill(id, options) {
  const select = $(id);
  for (const [value, label] of options) select.add(new Option(label, value));
}

function filter() {
  const s = state.index.scenes;
  const want = (id) => ($(id).value === "" ? null : Number($(id).value));
  const object = want("f-object"), n = want("f-n"), relation = want("f-relation");
  const family = want("f-family"), hidden = want("f-hidden"), verify = want("f-verify");
  state.matches = [];
  for (let k = 0; k < s.id.length; k++) {
    if (object !== null && !s.objects[k].includes(object)) continue;
    if (n !== null && s.n[k] !== n) continue;
    if (relation !== null && !(s.relations[k] & (1 << relation))) continue;
    if (family !== null && s.family[k] !== family) continue;
    if (hidden !== null && s.hidden[k] !== hidden) continue;
    if (verify !== null && s.verify[k] !== verify) continue;
    state.matches.push(k);
  }
  $("count").textContent = `${state.matches.length} of ${s.id.length} images`;
  show(0);
}

function show(page) {
  const per = state.index.per_page, pages = Math.max(1, Math.ceil(state.matches.length / per));
  state.page = Math.min(Math.max(page, 0), pages - 1);
  $("page").textContent = `page ${state.page + 1} of ${pages}`;
  $("prev").disabled = state.page === 0;
  $("next").disabled = state.page === pages - 1;
  const s = state.index.scenes, v = state.index.vocab, grid = $("grid");
  grid.replaceChildren();
  for (const k of state.matches.slice(state.page * per, (state.page + 1) * per)) {
    const figure = document.createElement("figure");
    figure.dataset.k = k;
    figure.dataset.id = s.id[k];
    if (v.verify[s.verify[k]] === "disagrees") figure.classList.add("disagrees");
    if (v.image[s.image[k]] === "ok") {
      const img = document.createElement("img");
      img.loading = "lazy";
      img.src = `thumbs/${encodeURIComponent(s.id[k])}.jpg`;
      img.alt = s.id[k];
      figure.append(img);
    } else {
      const none = document.createElement("div");
      none.className = "no-image";
      none.textContent = `image ${v.image[s.image[k]]}`;
      figure.append(none);
    }
    const caption = document.createElement("figcaption");
    caption.textContent = s.id[k];
    figure.append(caption);
    figure.addEventListener("click", () => open(k));
    grid.append(figure);
  }
}

function open(k) {
  const chunk = Math.floor(k / state.index.chunk);
  state.waiting = k;
  if (state.details[chunk]) return detail(k);
  const script = document.createElement("script");
  script.src = `data/details-${String(chunk).padStart(5, "0")}.js`;
  document.body.append(script);
}

function tabletestDetails(chunk, scenes) {
  state.details[chunk] = scenes;
  if (state.waiting !== null && Math.floor(state.waiting / state.index.chunk) === chunk) detail(state.waiting);
}

function detail(k) {
  const d = state.details[Math.floor(k / state.index.chunk)][k % state.index.chunk];
  const s = state.index.scenes, v = state.index.vocab;
  $("d-title").textContent = d.id + (d.of ? ` (made from ${d.of})` : "");
  const view = $("d-view");
  view.replaceChildren();
  if (v.image[s.image[k]] === "ok") {
    const img = document.createElement("img");
    img.src = d.record.file_name.split("/").map(encodeURIComponent).join("/");  // a '#' or '?' is part of the name
    img.alt = d.id;
    view.append(img, labels(d));
  } else {
    view.textContent = `image ${v.image[s.image[k]]}: ${d.record.file_name}`;
  }
  views(k);
  list("d-notes", d.notes);
  list("d-changes", d.changes);
  list("d-legend", d.legend);
  const body = $("d-questions").tBodies[0];
  body.replaceChildren();
  for (const row of d.questions) {
    const tr = body.insertRow();
    for (const cell of row) tr.insertCell().textContent = cell;
  }
  $("d-record").textContent = JSON.stringify(d.record, null, 1);
  $("detail").hidden = false;
}

// The scene's views side by side (the scene first, then its views in order), the one shown marked; a click opens one.
function views(k) {
  const s = state.index.scenes, v = state.index.vocab, strip = $("d-views");
  const scene = s.view_of[k] >= 0 ? s.view_of[k] : k;
  const members = [scene];
  for (let j = scene + 1; j < s.id.length; j++) if (s.view_of[j] === scene) members.push(j);
  strip.replaceChildren();
  strip.hidden = members.length < 2;
  if (strip.hidden) return;
  for (const j of members) {
    const figure = document.createElement("figure");
    if (j === k) figure.classList.add("current");
    if (v.image[s.image[j]] === "ok") {
      const img = document.createElement("img");
      img.src = `thumbs/${encodeURIComponent(s.id[j])}.jpg`;
      img.alt = s.id[j];
      figure.append(img);
    }
    figure.append(Object.assign(document.createElement("figcaption"), { textContent: s.id[j] }));
    figure.addEventListener("click", () => open(j));
    strip.append(figure);
  }
}

function list(id, items) {
  const ul = $(id);
  ul.replaceChildren(...items.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
}

// The labels on the image, in its pixels: 2D box, 3D box projected with the recorded camera, name.
function labels(d) {
  const NS = "http://www.w3.org/2000/svg";
  const [w, h] = d.resolution;
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  svg.setAttribute("preserveAspectRatio", "none");
  const stroke = Math.max(w / 400, 0.5);
  const add = (tag, attrs) => {
    const el = document.createElementNS(NS, tag);
    for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, value);
    svg.append(el);
    return el;
  };
  d.labels.forEach((label, position) => {
    const color = label.hidden ? HIDDEN : PALETTE[position % PALETTE.length];
    const [x0, y0, x1, y1] = label.bbox;
    add("rect", { x: x0, y: y0, width: x1 - x0, height: y1 - y0, fill: "none", stroke: color, "stroke-width": stroke,
                  "stroke-dasharray": label.hidden ? `${4 * stroke}` : "none", class: "box2d" });
    if (label.box3d) {
      for (const [i, j] of EDGES) {
        const [a, b] = [label.box3d[i], label.box3d[j]];
        add("line", { x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: color, "stroke-width": stroke, class: "box3d" });
      }
    }
    const text = add("text", { x: x0, y: Math.max(y0 - 2 * stroke, 10 * stroke), fill: color, "font-size": 10 * stroke,
                               "paint-order": "stroke", stroke: "#fff", "stroke-width": stroke / 2 });
    text.textContent = label.name + (label.hidden ? " (hidden)" : "");
  });
  return svg;
}
