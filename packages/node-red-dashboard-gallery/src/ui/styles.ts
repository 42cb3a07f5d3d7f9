/** The widget's CSS, added to the page once (the UMD file is the only thing the dashboard loads). */
const CSS = `
.obs-gallery { display: flex; flex-direction: column; gap: 8px; width: 100%; }
.obs-gallery-bar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; font-size: 0.85rem; }
.obs-gallery-bar select { border: 1px solid rgba(128,128,128,.5); border-radius: 4px; padding: 2px 6px; color: inherit; background: transparent; }
.obs-gallery-bar option { color: #000; }
.obs-gallery-count { opacity: .7; margin-left: auto; }
.obs-gallery-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 8px; }
.obs-card { display: flex; flex-direction: column; justify-content: flex-start; align-items: stretch; border: 1px solid rgba(128,128,128,.35); border-radius: 6px; overflow: hidden; cursor: pointer; background: rgba(128,128,128,.06); text-align: left; padding: 0; color: inherit; font: inherit; }
.obs-card:focus-visible { outline: 2px solid rgb(var(--v-theme-primary, 0,94,184)); }
.obs-card-image { display: block; width: 100%; aspect-ratio: 16 / 9; object-fit: cover; background: #222; }
.obs-card-noimage { display: flex; align-items: center; justify-content: center; width: 100%; aspect-ratio: 16 / 9; background: #333; color: #bbb; font-size: .8rem; }
.obs-card-body { padding: 6px 8px; font-size: .8rem; line-height: 1.35; }
.obs-card-title { display: flex; align-items: center; gap: 6px; font-weight: 600; font-size: .9rem; }
.obs-card-event { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.obs-card-confidence { flex: none;  margin-left: auto; font-variant-numeric: tabular-nums; opacity: .85; }
.obs-warning { color: #d32f2f; font-weight: 700; }
.obs-card-meta { opacity: .8; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.obs-card-time { white-space: normal; }
.obs-empty { opacity: .7; font-size: .9rem; padding: 12px 0; }
.obs-dialog { position: fixed; inset: 0; z-index: 3000; background: rgba(0,0,0,.75); display: flex; align-items: center; justify-content: center; }
.obs-dialog-box { background: #fff; color: #111; border-radius: 8px; max-width: 92vw; max-height: 92vh; overflow: auto; padding: 12px; }
.obs-dialog-box img { display: block; max-width: 88vw; max-height: 70vh; }
.obs-dialog-head { display: flex; align-items: center; gap: 8px; margin-bottom: 8px; font-weight: 600; }
.obs-dialog-close { margin-left: auto; border: 0; background: transparent; font-size: 1.3rem; cursor: pointer; color: inherit; }
.obs-dialog-details { margin-top: 8px; font-size: .85rem; display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; }
.obs-dialog-note { margin-top: 8px; font-size: .85rem; opacity: .8; }
`;

const STYLE_ID = 'ui-observation-gallery-style';

export function addStyles(): void {
  if (typeof document === 'undefined' || document.getElementById(STYLE_ID)) return;
  const style = document.createElement('style');
  style.id = STYLE_ID;
  style.textContent = CSS;
  document.head.appendChild(style);
}
