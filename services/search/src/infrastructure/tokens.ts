export const SEARCH_DB = Symbol('SEARCH_DB');
