/**
 * `<events-calendar src="https://HOST/calendar/events/v1" view="month">`: the service's events in FullCalendar's
 * month, week, day and list views, in one of the service's eleven languages, in the site's time zone or the
 * viewer's, kept current by the change stream (or a conditional poll), each event opening its details.
 *
 * Attributes: `src` (the API root, required), `view` (`month`, `week`, `day`, `list`), `lang`, `date` (the first
 * day shown, `YYYY-MM-DD`; also the calendar's "today"), `timezone` (`site` or `local`), `site-timezone` (the
 * site's IANA zone; else the zone of the events), `poll` (seconds between polls when there is no stream, 30),
 * and the list filters `categories`, `tags`, `venue`, `organizer`, `search`, `featured` as the API reads them.
 */
import { Calendar, type EventInput, type EventSourceFuncArg } from '@fullcalendar/core';
import dayGridPlugin from '@fullcalendar/daygrid';
import listPlugin from '@fullcalendar/list';
import timeGridPlugin from '@fullcalendar/timegrid';
import { type ApiEvent, CalendarApi, FILTERS, type Filters } from './api';
import { detailsContent, htmlToText } from './details';
import { Live } from './live';
import { LOCALES } from './locales';
import { type Language, languageOf, MESSAGES } from './messages';
import { STYLES } from './styles';
import { formatUtc, fromWall, isZone, nextDay, parseUtc, toWall, viewerZone } from './zones';

const VIEWS = { month: 'dayGridMonth', week: 'timeGridWeek', day: 'timeGridDay', list: 'listUpcoming' } as const;
type ViewName = keyof typeof VIEWS;
const DAY_MS = 86_400_000;
/** The list view: the next 60 days from the day shown. */
const LIST_VIEW = { type: 'list', duration: { days: 60 }, dateAlignment: 'day' };
const DEFAULT_POLL_SECONDS = 30;
let instances = 0;

function viewOf(value: string | null): ViewName {
  return value && Object.hasOwn(VIEWS, value) ? (value as ViewName) : 'month';
}

function nameOfView(type: string): ViewName | undefined {
  return (Object.keys(VIEWS) as ViewName[]).find((name) => VIEWS[name] === type);
}

/** A `YYYY-MM-DD` attribute, or undefined. */
function dayOf(value: string | null): string | undefined {
  return value && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(`${value}T00:00:00Z`))
    ? value
    : undefined;
}

export class EventsCalendarElement extends HTMLElement {
  static readonly observedAttributes = ['src', 'view', 'lang', 'date', 'timezone', 'site-timezone', 'poll', ...FILTERS];

  private readonly root: ShadowRoot;
  private readonly key = `ec${++instances}`;
  private calendar: Calendar | undefined;
  private api: CalendarApi | undefined;
  private live: Live | undefined;
  /** The language the service answered in, when `lang` names none. */
  private answeredLanguage: Language | undefined;
  /** The zone the events carry, when `site-timezone` names none. */
  private eventsZone: string | undefined;
  private useViewerZone = false;
  /** The first-page URLs of the range shown now. */
  private shown: string | undefined;
  private byId = new Map<string, ApiEvent>();
  private elements!: {
    zoneLabel: HTMLSpanElement;
    zoneButton: HTMLButtonElement;
    subscribe: HTMLAnchorElement;
    status: HTMLParagraphElement;
    calendar: HTMLDivElement;
    dialog: HTMLDialogElement;
    dialogBody: HTMLDivElement;
    close: HTMLButtonElement;
  };

  constructor() {
    super();
    this.root = this.attachShadow({ mode: 'open' });
  }

  connectedCallback(): void {
    if (!this.elements) this.build();
    this.useViewerZone = this.getAttribute('timezone') === 'local';
    this.start();
  }

  disconnectedCallback(): void {
    this.stop();
  }

  attributeChangedCallback(name: string, before: string | null, after: string | null): void {
    if (!this.calendar || before === after) return;
    if (name === 'view') this.calendar.changeView(VIEWS[viewOf(after)]);
    else if (name === 'date') {
      const day = dayOf(after);
      if (day) this.calendar.gotoDate(day);
    } else if (name === 'timezone') this.setViewerZone(after === 'local');
    else {
      this.stop();
      this.start();
    }
  }

  /** The view shown now (`month`, `week`, `day` or `list`). */
  get view(): ViewName {
    return nameOfView(this.calendar?.view.type ?? '') ?? viewOf(this.getAttribute('view'));
  }

  /** Reads again what the calendar shows. */
  refresh(): void {
    this.calendar?.refetchEvents();
  }

  private get language(): Language {
    return languageOf(this.getAttribute('lang')) ?? this.answeredLanguage ?? 'en';
  }

  private get t() {
    return MESSAGES[this.language];
  }

  /** The zone times are shown in. */
  private get zone(): string {
    if (this.useViewerZone) return viewerZone();
    const site = this.getAttribute('site-timezone');
    return isZone(site) ? site : (this.eventsZone ?? viewerZone());
  }

  private build(): void {
    const style = document.createElement('style');
    style.textContent = STYLES;
    const bar = document.createElement('div');
    bar.className = 'bar';
    bar.setAttribute('part', 'bar');
    const zoneLabel = document.createElement('span');
    zoneLabel.className = 'zone-label';
    const zoneButton = document.createElement('button');
    zoneButton.type = 'button';
    zoneButton.className = 'zone';
    zoneButton.addEventListener('click', () => this.setViewerZone(!this.useViewerZone));
    const subscribe = document.createElement('a');
    subscribe.className = 'subscribe';
    subscribe.setAttribute('part', 'subscribe');
    bar.append(zoneLabel, zoneButton, subscribe);
    const status = document.createElement('p');
    status.className = 'status';
    status.setAttribute('role', 'status');
    const calendar = document.createElement('div');
    calendar.className = 'calendar';
    calendar.setAttribute('part', 'calendar');
    const dialog = document.createElement('dialog');
    dialog.setAttribute('aria-labelledby', `${this.key}-title`);
    dialog.setAttribute('part', 'dialog');
    const close = document.createElement('button');
    close.type = 'button';
    close.className = 'close';
    close.addEventListener('click', () => dialog.close());
    const dialogBody = document.createElement('div');
    dialog.append(close, dialogBody);
    dialog.addEventListener('click', (event) => {
      if (event.target === dialog) dialog.close(); // a click on the backdrop
    });
    const region = document.createElement('section');
    region.append(bar, status, calendar, dialog);
    this.root.append(style, region);
    this.elements = { zoneLabel, zoneButton, subscribe, status, calendar, dialog, dialogBody, close };
  }

  private start(): void {
    const src = this.getAttribute('src');
    if (!src) {
      this.elements.status.textContent = this.t.failed;
      return;
    }
    const root = new URL(src, document.baseURI).href.replace(/\/+$/, '');
    const filters: Filters = {};
    for (const name of FILTERS) filters[name] = this.getAttribute(name) ?? undefined;
    this.api = new CalendarApi(root, languageOf(this.getAttribute('lang')), filters);
    const day = dayOf(this.getAttribute('date'));
    this.calendar = new Calendar(this.elements.calendar, {
      plugins: [dayGridPlugin, timeGridPlugin, listPlugin],
      locales: LOCALES,
      locale: this.language,
      timeZone: 'UTC', // floating wall-clock times of `this.zone` (zones.ts)
      initialView: VIEWS[viewOf(this.getAttribute('view'))],
      initialDate: day,
      now: () => (day ? `${day}T12:00:00` : new Date(toWall(Date.now(), this.zone))),
      headerToolbar: {
        start: 'prev,next today',
        center: 'title',
        end: 'dayGridMonth,timeGridWeek,timeGridDay,listUpcoming',
      },
      views: { listUpcoming: LIST_VIEW },
      height: 'auto',
      dayMaxEvents: 4,
      eventInteractive: true,
      eventDisplay: 'auto',
      events: (info, success, failure) => {
        this.load(info).then(success, failure);
      },
      loading: (busy) => {
        this.elements.status.textContent = busy ? this.t.loading : '';
      },
      eventSourceFailure: () => {
        this.elements.status.textContent = this.t.failed;
      },
      eventClick: (arg) => {
        arg.jsEvent.preventDefault();
        this.open(arg.event.id, arg.el);
      },
      eventDidMount: (arg) => {
        arg.el.setAttribute('aria-haspopup', 'dialog');
      },
      // a day cell is named by its date alone, yet holds the day's events: let its content speak for it
      dayCellDidMount: (arg) => arg.el.removeAttribute('aria-labelledby'),
      datesSet: () => this.quietIcons(),
      viewDidMount: () => this.dispatchEvent(new CustomEvent('viewchange', { detail: { view: this.view } })),
    });
    this.calendar.render();
    this.texts();
    this.quietIcons();
    this.live = new Live(
      {
        streamUrl: this.api.streamUrl(),
        pollSeconds: Math.max(0.2, Number(this.getAttribute('poll')) || DEFAULT_POLL_SECONDS),
        hasChanged: async () => {
          const shown = this.shown;
          if (!shown || !this.api) return false;
          const before = this.api.tags.get(shown);
          return (await this.api.tagOf(shown)) !== before;
        },
        changed: () => this.refresh(),
      },
      (mode) => this.setAttribute('data-live', mode),
    );
    this.live.start();
  }

  /** FullCalendar's arrow icons are `role="img"` without a name, inside buttons that have one: hide them. */
  private quietIcons(): void {
    for (const icon of this.elements.calendar.querySelectorAll('.fc-icon[role="img"]')) {
      icon.removeAttribute('role');
      icon.setAttribute('aria-hidden', 'true');
    }
  }

  private stop(): void {
    this.live?.stop();
    this.live = undefined;
    this.calendar?.destroy();
    this.calendar = undefined;
    this.elements.dialog.open && this.elements.dialog.close();
  }

  private setViewerZone(viewer: boolean): void {
    if (viewer === this.useViewerZone) return;
    this.useViewerZone = viewer;
    this.texts();
    this.refresh();
  }

  /** The element's own texts in the current language and zone, and FullCalendar's locale. */
  private texts(): void {
    const t = this.t;
    const { zoneLabel, zoneButton, subscribe, close } = this.elements;
    this.calendar?.setOption('locale', this.language);
    this.calendar?.setOption('buttonText', { list: t.list });
    this.calendar?.setOption('views', {
      listUpcoming: { type: 'list', duration: { days: 60 }, dateAlignment: 'day', buttonText: t.list },
    });
    this.setAttribute('aria-label', t.calendar);
    this.elements.calendar.setAttribute('aria-label', t.calendar);
    this.elements.calendar.setAttribute('role', 'region');
    zoneLabel.textContent = t.timesIn.replace('{zone}', this.zone);
    zoneButton.textContent = this.useViewerZone ? t.siteZone : t.myZone;
    zoneButton.setAttribute('aria-pressed', String(this.useViewerZone));
    close.textContent = t.close;
    if (this.api) {
      subscribe.href = this.api.feedUrl();
      subscribe.textContent = t.subscribe;
    }
  }

  /** The events FullCalendar asks for: the range, widened by a day each side (all-day dates are the events'). */
  private async load(info: EventSourceFuncArg): Promise<EventInput[]> {
    const api = this.api as CalendarApi;
    const zone = this.zone;
    const start = fromWall(info.start.getTime(), zone) - DAY_MS;
    const end = fromWall(info.end.getTime(), zone) + DAY_MS;
    const first = api.rangeUrl(start, end, formatUtc);
    this.shown = first;
    const answer = await api.range(first);
    const before = this.language;
    const zoneBefore = this.zone;
    this.answeredLanguage = languageOf(answer.language);
    this.eventsZone = this.eventsZone ?? answer.events.find((event) => isZone(event.timezone))?.timezone;
    if (this.language !== before || this.zone !== zoneBefore) this.texts();
    this.byId = new Map(answer.events.map((event) => [String(event.id), event]));
    return answer.events.map((event) => this.input(event, this.zone));
  }

  private input(event: ApiEvent, zone: string): EventInput {
    const title = htmlToText(event.title);
    const classNames = event.featured ? ['featured'] : [];
    if (event.all_day) {
      return {
        id: String(event.id),
        title,
        allDay: true,
        start: event.start_date.slice(0, 10),
        end: nextDay(event.end_date.slice(0, 10)),
        classNames,
      };
    }
    return {
      id: String(event.id),
      title,
      start: toWall(parseUtc(event.utc_start_date), zone),
      end: toWall(parseUtc(event.utc_end_date), zone),
      classNames,
    };
  }

  private open(id: string, from: HTMLElement): void {
    const event = this.byId.get(id);
    if (!event || !this.api) return;
    const { dialog, dialogBody } = this.elements;
    dialogBody.replaceChildren(
      detailsContent({
        event,
        zone: this.zone,
        locale: this.language,
        t: this.t,
        icalUrl: this.api.eventIcalUrl(event.id),
        titleId: `${this.key}-title`,
      }),
    );
    // back to what opened it when it closes (the focused row or link; else the event's element)
    const back = (this.root.activeElement as HTMLElement | null) ?? from;
    dialog.addEventListener('close', () => (back.isConnected ? back : from).focus(), { once: true });
    dialog.showModal();
  }
}
