interface CalendarCreateEvent {
  /** @default "primary" */
  calendarId?: string;
  /** @maxLength 1024 */
  summary: string;
  start: CalendarCreateEventEventTime;
  end: CalendarCreateEventEventTime;
  attendees?: {
    /** @format email */
    email: string;
    /** @default false */
    optional?: boolean;
    responseStatus?: "needsAction" | "declined" | "tentative" | "accepted";
  }[];
  recurrence?: Array<
    /** @pattern ^(RRULE|EXRULE|RDATE|EXDATE): */
    string
  >;
  reminders?: {
    useDefault?: boolean;
    /** @maxItems 5 */
    overrides?: {
      method: "email" | "popup";
      /**
       * @minimum 0
       * @maximum 40320
       */
      minutes: number;
    }[];
  };
  /** @default "default" */
  visibility?: "default" | "public" | "private";
}

/** A timed or an all-day boundary. */
interface CalendarCreateEventEventTime {
  /** @format date-time */
  dateTime?: string;
  /**
   * For all-day events.
   * @format date
   */
  date?: string;
  /** @example "Europe/Paris" */
  timeZone?: string;
}
