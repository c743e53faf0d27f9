import { closeDuckDb } from '../../shared/warehouse/duckdb/database';

// Every suite closes the DuckDB database it opened (if any), so no native handle keeps the Jest
// worker alive after its last test (docs/local.md, "Tests").
afterAll(closeDuckDb);
