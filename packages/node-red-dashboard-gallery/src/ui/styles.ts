/**
 * The widget's CSS, added to the page once (the UMD file is the only thing the dashboard loads).
 * Every colour comes from the Dashboard 2 theme of the page, as Dashboard's own widgets take it:
 * Vuetify's theme variables (`--v-theme-<colour>`, an "r,g,b" triple), which Dashboard sets from
 * the page's ui-theme node: group-background and group-outline for the group the widget sits in
 * (its text is on-group-background), surface for the dialog, error for warnings. The fallbacks
 * are Dashboard's defaults, for a page without a theme.
 */
const GROUP = 'var(--v-theme-group-background, 255, 255, 255)';
const ON_GROUP = 'var(--v-theme-on-group-background, 34, 34, 34)';
const OUTLINE = 'var(--v-theme-group-outline, 209, 209, 209)';
const SURFACE = 'var(--v-theme-surface, 255, 255, 255)';
const ON_SURFACE = 'var(--v-theme-on-surface, 34, 34, 34)';
const PRIMARY = 'var(--v-theme-primary, 0, 148, 206)';
const ERROR = 'var(--v-theme-error, 255, 82, 82)';

const CSS = `
.obs-gallery { display: flex; flex-direction: column; gap: 8px; width: 100%; color: rgb(${ON_GROUP}); }
.obs-gallery-bar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; font-size: 0.85rem; }
.obs-gallery-bar select, .obs-gallery-bar option { color: rgb(${ON_GROUP}); background-color: rgb(${GROUP}); }
.obs-gallery-bar select { border: 1px solid rgb(${OUTLINE}); border-radius: 4px; padding: 2px 6px; }
.obs-gallery-count { opacity: .7; margin-left: auto; }
.obs-gallery-grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(220px, 1fr)); gap: 8px; }
.obs-card { display: flex; flex-direction: column; justify-content: flex-start; align-items: stretch; border: 1px solid rgb(${OUTLINE}); border-radius: 6px; overflow: hidden; cursor: pointer; background-color: rgba(${ON_GROUP}, .04); text-align: left; padding: 0; color: inherit; font: inherit; }
.obs-card:focus-visible { outline: 2px solid rgb(${PRIMARY}); }
.obs-card-image { display: block; width: 100%; aspect-ratio: 16 / 9; object-fit: cover; background-color: rgba(${ON_GROUP}, .12); }
.obs-card-noimage { display: flex; align-items: center; justify-content: center; width: 100%; aspect-ratio: 16 / 9; background-color: rgba(${ON_GROUP}, .08); color: rgba(${ON_GROUP}, .7); font-size: .8rem; }
.obs-card-missing { box-sizing: border-box; border: 2px dashed rgb(${ERROR}); color: rgb(${ON_GROUP}); font-weight: 600; }
.obs-card-body { padding: 6px 8px; font-size: .8rem; line-height: 1.35; }
.obs-card-title { display: flex; align-items: center; gap: 6px; font-weight: 600; font-size: .9rem; }
.obs-card-event { overflow: hidden; text-overflow: ellipsis; white-space: nowrap; min-width: 0; }
.obs-card-confidence { flex: none;  margin-left: auto; font-variant-numeric: tabular-nums; opacity: .85; }
.obs-warning { color: rgb(${ERROR}); font-weight: 700; }
.obs-card-meta { opacity: .8; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.obs-card-time { white-space: normal; }
.obs-empty { opacity: .7; font-size: .9rem; padding: 12px 0; }
.obs-dialog { position: fixed; inset: 0; z-index: 3000; background: rgba(0,0,0,.75); display: flex; align-items: center; justify-content: center; }
.obs-dialog-box { background-color: rgb(${SURFACE}); color: rgb(${ON_SURFACE}); border: 1px solid rgb(${OUTLINE}); border-radius: 8px; max-width: 92vw; max-height: 92vh; overflow: auto; padding: 12px; }
.obs-dialog-box img { display: block; max-width: 88vw; max-height: 70vh; }
.obs-dialog-head { display: flex; align-items: center; gap: 8px; margin-bottom: 8px; font-weight: 600; }
.obs-dialog-close { margin-left: auto; border: 0; background: transparent; font-size: 1.3rem; cursor: pointer; color: inherit; }
.obs-dialog-details { margin-top: 8px; font-size: .85rem; display: grid; grid-template-columns: auto 1fr; gap: 2px 12px; }
.obs-dialog-clip { color: rgb(${PRIMARY}); }
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
