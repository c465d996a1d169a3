/** Lower-cased, whitespace-collapsed text: equal questions get equal duplicate identities. */
export const normalizeText = (text: string): string => text.trim().replace(/\s+/g, " ").toLowerCase()
