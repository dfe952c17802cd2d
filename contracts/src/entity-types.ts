/**
 * Entity type under which the translator files free text (POST /api/v1/translate): no module owns it,
 * so the gateway refuses reports of it (ENTITY_TYPE_RESERVED) and the planner dead-letters changes of
 * it produced to Kafka directly.
 */
export const FREE_TEXT_ENTITY_TYPE = 'text';
