// The dashboard's whole stylesheet, inlined in every page (~2 KB, no extra
// request): readable on a phone first, tables that scroll sideways, job tables as cards.
export const STYLE = `
*{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,sans-serif;color:#1d2330;background:#f5f6f8}
a{color:#2453c7;text-decoration:none}a:hover{text-decoration:underline}
header{background:#1d2330;color:#fff;padding:.5rem 1rem;display:flex;gap:1rem;align-items:center;position:relative;margin-bottom:2.2rem}
header a{color:#cfd7ea}header a.on,.g.on>a{color:#fff;font-weight:600}header form{margin-left:auto}header button{white-space:nowrap}
nav{display:flex;gap:1rem}.g>div{display:none}.menu{display:none}
.g.on>div{display:flex;flex-wrap:wrap;gap:.2rem 1rem;position:absolute;left:0;right:0;top:100%;background:#2e3648;padding:.3rem 1rem}
main{padding:1rem;max-width:1100px;margin:auto}h1{font-size:1.3rem;margin:.2rem 0 1rem}h2{font-size:1.05rem;margin:1.5rem 0 .5rem}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(130px,1fr));gap:.6rem}
.card{background:#fff;border-radius:8px;padding:.6rem .8rem;box-shadow:0 1px 2px #0001}.card b{display:block;font-size:1.4rem}.card span{color:#5b6475;font-size:.85rem}
.scroll{overflow-x:auto;background:#fff;border-radius:8px;box-shadow:0 1px 2px #0001}
table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.45rem .6rem;border-bottom:1px solid #eceef2;vertical-align:top;font-size:.9rem}
th{color:#5b6475;font-weight:600;white-space:nowrap}td.err{color:#a1261b;max-width:28rem;overflow-wrap:anywhere}
button{font:inherit;font-size:.85rem;padding:.25rem .6rem;border:1px solid #c5cad6;border-radius:6px;background:#fff;cursor:pointer}
button.danger{border-color:#e0a49e;color:#a1261b}form.inline{display:inline}
.bar{display:flex;flex-wrap:wrap;gap:.5rem;align-items:center;margin:.5rem 0}
input{font:inherit;padding:.3rem .5rem;border:1px solid #c5cad6;border-radius:6px}
.warn{background:#fff4d6;border:1px solid #f0d48a;border-radius:8px;padding:.5rem .8rem;margin:.4rem 0}
.muted{color:#5b6475}.esc{color:#a1261b;background:#fde8e6;border-radius:3px;font-family:monospace}pre{background:#fff;padding:.8rem;border-radius:8px;white-space:pre-wrap;overflow-wrap:anywhere;font-size:.8rem}td.act{white-space:nowrap}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem}dt{color:#5b6475}dd{margin:0;overflow-wrap:anywhere}
svg{max-width:100%;height:auto;background:#fff;border-radius:8px}
.login{max-width:22rem;margin:15vh auto;background:#fff;padding:1.5rem;border-radius:8px;box-shadow:0 1px 3px #0002}
.login input{width:100%;margin:.5rem 0 1rem}.malformed{color:#a04a00;font-style:italic}.tag{font-size:.75rem;padding:.05rem .4rem;border-radius:4px;background:#eceef2}
@media(max-width:640px){header{margin-bottom:0}.menu{display:block;cursor:pointer;border:1px solid #5b6475;border-radius:6px;padding:0 .5rem}
nav{display:none;position:absolute;z-index:1;left:0;right:0;top:100%;background:#1d2330;flex-direction:column;padding:.5rem 1rem}#menu:checked~nav{display:flex}
.g>div,.g.on>div{display:flex;flex-wrap:wrap;gap:.2rem 1rem;position:static;background:none;padding:.2rem 0 .4rem 1rem}
table.jobs tr:first-child{display:none}table.jobs tr{display:block;border-bottom:1px solid #eceef2;padding:.3rem 0}
table.jobs td{display:flex;gap:.6rem;border:0;padding:.15rem .6rem;max-width:none}table.jobs td[data-label]::before{content:attr(data-label);color:#5b6475;min-width:4.5rem;flex:none}}
`;
