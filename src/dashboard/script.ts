// The dashboard's only script (~0.7 KB), on every page with the page's CSP
// nonce: no inline handler anywhere, so a CSP without 'unsafe-inline' keeps
// an escaping bug from ever running script.
// - A form with data-confirm asks before it is sent (one listener on the
//   document, so forms swapped in by the refresh ask too).
// - Every time (<time datetime>, chart labels with data-t) is shown in the
//   browser's time zone; the page holds UTC, and keeps it in each title.
// - The overview refreshes its live part every few seconds, unless paused or
//   the tab is hidden; the pause choice is kept in localStorage.
// Without JavaScript the pages still work: forms post at once, figures stay.
import { html, raw } from "hono/html";
import type { Html } from "./html.js";

const SCRIPT = `(()=>{document.addEventListener("submit",e=>{const f=e.target,m=f.dataset&&f.dataset.confirm;if(m&&!confirm(m))e.preventDefault()});
const d=new Intl.DateTimeFormat([],{dateStyle:"medium",timeStyle:"medium"}),h=new Intl.DateTimeFormat([],{hour:"2-digit",minute:"2-digit"}),
loc=r=>{r.querySelectorAll("time[datetime]").forEach(t=>t.textContent=d.format(new Date(t.dateTime)));r.querySelectorAll("[data-t]").forEach(t=>t.textContent=h.format(new Date(+t.dataset.t)))};loc(document);
const b=document.getElementById("pause"),l=document.getElementById("live");if(!b||!l)return;let on=localStorage.getItem("tickq-refresh")!=="off";
const show=()=>{b.textContent=on?"Pause":"Resume";b.setAttribute("aria-pressed",String(!on))};show();
b.addEventListener("click",()=>{on=!on;localStorage.setItem("tickq-refresh",on?"on":"off");show()});
setInterval(async()=>{if(!on||document.hidden)return;try{const r=await fetch(l.dataset.src,{credentials:"same-origin"});if(r.redirected)location.reload();else if(r.ok){l.innerHTML=await r.text();loc(l)}}catch(e){}},Number(l.dataset.every))})()`;

/** The script, allowed by the page's nonce (pageHeaders). */
export const pageScript = (nonce: string): Html => html`<script nonce="${nonce}">${raw(SCRIPT)}</script>`;
