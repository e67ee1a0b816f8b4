// The overview's only script (~0.5 KB): every few seconds, unless paused or
// the tab is hidden, fetch the live part and swap it in. The pause choice
// is kept in localStorage. Without JavaScript the page is simply static.
import { html, raw } from "hono/html";
import type { Html } from "./layout.js";

const SCRIPT = `(()=>{const b=document.getElementById("pause"),l=document.getElementById("live");let on=localStorage.getItem("tickq-refresh")!=="off";
const show=()=>{b.textContent=on?"Pause":"Resume";b.setAttribute("aria-pressed",String(!on))};show();
b.onclick=()=>{on=!on;localStorage.setItem("tickq-refresh",on?"on":"off");show()};
setInterval(async()=>{if(!on||document.hidden)return;try{const r=await fetch(l.dataset.src,{credentials:"same-origin"});if(r.redirected)location.reload();else if(r.ok)l.innerHTML=await r.text()}catch(e){}},Number(l.dataset.every))})()`;

export const refreshScript = (): Html => html`<script>${raw(SCRIPT)}</script>`;
