/**
 * The embeddable calendar's entry, bundled into `/embed/calendar.<hash>.js`: defines `<events-calendar>` once (a page
 * may load two versions of the script).
 */
import { EventsCalendarElement } from './element';

if (!customElements.get('events-calendar')) customElements.define('events-calendar', EventsCalendarElement);
