/**
 * The embeddable calendar's entry, bundled into `/embed/calendar.<hash>.js`: defines `<events-calendar>` once (a page
 * may load the script twice, under both its names).
 */
import { EventsCalendarElement } from './element';

if (!customElements.get('events-calendar')) customElements.define('events-calendar', EventsCalendarElement);
