/** An event type (spec 2.4, `GET /events/types/:event_id`). */
export interface EventType {
  id: number;
  name: string;
  description: string;
  [extra: string]: unknown;
}
