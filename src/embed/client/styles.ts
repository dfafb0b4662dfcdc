/**
 * The element's own styles, in its shadow root (FullCalendar adds its own there). Colours keep a contrast of at
 * least 4.5:1; every control shows a visible focus ring; the host page can restyle through `::part()` and the
 * custom properties below. On a narrow page the toolbar wraps (title on a line of its own) rather than overflow.
 */
export const STYLES = `
:host {
  display: block;
  --ec-accent: #1f5d99;
  --ec-text: #1b1b1b;
  --ec-muted: #4a4a4a;
  --ec-bg: #ffffff;
  --fc-event-bg-color: var(--ec-accent);
  --fc-event-border-color: var(--ec-accent);
  --fc-event-text-color: #ffffff;
  --fc-button-bg-color: #24384d;
  --fc-button-border-color: #24384d;
  --fc-button-hover-bg-color: #16222f;
  --fc-button-active-bg-color: #0b1218;
  --fc-today-bg-color: #fff7d1;
  color: var(--ec-text);
  background: var(--ec-bg);
  font: inherit;
  container: ec / inline-size;
}
:host([hidden]) { display: none; }
.bar { display: flex; flex-wrap: wrap; gap: 0.5em 1em; align-items: center; margin-bottom: 0.75em; }
.zone-label { color: var(--ec-muted); }
.bar button, dialog button {
  font: inherit; padding: 0.3em 0.8em; border: 1px solid #24384d; border-radius: 4px;
  background: #ffffff; color: #24384d; cursor: pointer;
}
.bar a, dialog a { color: var(--ec-accent); }
:focus-visible, .fc :focus-visible, .fc .fc-button:focus-visible {
  outline: 3px solid #c2410c; outline-offset: 2px; box-shadow: none;
}
.status:empty { display: none; }
.status { color: var(--ec-muted); margin: 0 0 0.5em; }
.fc .fc-event { cursor: pointer; }
.fc .fc-header-toolbar { flex-wrap: wrap; gap: 0.5em; }
@container ec (max-width: 560px) {
  .fc .fc-header-toolbar .fc-toolbar-chunk:nth-child(2) { order: -1; flex-basis: 100%; text-align: center; }
  .fc .fc-toolbar-title { font-size: 1.3em; }
}
.fc .fc-day-other .fc-daygrid-day-top { opacity: 1; }
.fc .fc-day-other .fc-daygrid-day-number { color: #595959; }
.fc .fc-daygrid-dot-event .fc-event-title, .fc .fc-daygrid-dot-event .fc-event-time { color: var(--ec-text); }
.fc .fc-list-event:focus-visible td { background: #eef4fb; }
.fc .fc-col-header-cell-cushion, .fc .fc-daygrid-day-number, .fc .fc-list-day-cushion a { color: var(--ec-text); }
dialog {
  max-width: min(40em, 92vw); border: 1px solid #7a7a7a; border-radius: 6px; padding: 1.25em; color: var(--ec-text);
}
dialog::backdrop { background: rgba(0, 0, 0, 0.45); }
dialog h2 { margin-top: 0; font-size: 1.3em; }
dialog dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.3em 1em; }
dialog dt { font-weight: bold; }
dialog dd { margin: 0; }
dialog dd .line { display: block; }
dialog ul { margin: 0; padding-left: 1.1em; }
dialog .description img { max-width: 100%; height: auto; }
dialog .links { display: flex; flex-wrap: wrap; gap: 1em; }
dialog .close { float: right; margin-left: 1em; }
`;
