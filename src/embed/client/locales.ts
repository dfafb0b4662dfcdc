/** FullCalendar's own locales of the element's languages (English is FullCalendar's built-in default). */
import type { LocaleInput } from '@fullcalendar/core';
import de from '@fullcalendar/core/locales/de';
import es from '@fullcalendar/core/locales/es';
import fr from '@fullcalendar/core/locales/fr';
import it from '@fullcalendar/core/locales/it';
import ja from '@fullcalendar/core/locales/ja';
import nb from '@fullcalendar/core/locales/nb';
import nl from '@fullcalendar/core/locales/nl';
import pl from '@fullcalendar/core/locales/pl';
import ptBr from '@fullcalendar/core/locales/pt-br';
import sv from '@fullcalendar/core/locales/sv';

export const LOCALES: LocaleInput[] = [nl, fr, de, it, ja, nb, pl, ptBr, es, sv];
