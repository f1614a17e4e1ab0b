/**
 * SQL that makes FerretDB's indexes usable on PostgreSQL (docs/adr/0090, 0190).
 *
 * FerretDB 1.24 turns each declared index into a btree on `(_jsonb -> 'field')`, but pushes
 * filters down as `_jsonb -> 'field' @> '"value"'` (or `_jsonb #> '{a,b}' @> …` for a dotted
 * field), which a btree cannot serve. An event trigger mirrors every btree FerretDB creates on a
 * collection table as one GIN `jsonb_path_ops` index over the same keys, in the same statement:
 * the index exists before `createIndexes` answers, whoever created it and whenever, with no step
 * for the test kit, the dev stack or the bench to remember.
 *
 * - One multicolumn GIN per index, not one per key (ADR 0190): the planner cannot estimate `@>`
 *   without statistics, so with one GIN per key it ANDs a rare key's bitmap with a common key's
 *   (`{user_id, resource_id}` read every session of the resource: 30 ms at 200 000 sessions);
 *   a multicolumn GIN intersects inside the index, skipping through the common key's postings.
 * - `fastupdate = off`: with the pending list on, every lookup also scans the entries inserted
 *   since the last vacuum, unsorted (50 buffers instead of 3 for one `_id`), and that cost grows
 *   with the insert rate until autovacuum merges them.
 *
 * The closing statements catch up a data folder from an older launcher: mirrors for indexes made
 * before the trigger, pending lists merged, and `_gin` mirrors that no btree asks for any more
 * (the per-key ones, a dropped index's) dropped. Idempotent: run at every start.
 */
export const INDEX_MIRROR_SQL = String.raw`
-- The mirror a FerretDB btree asks for: its table, name and GIN column list; no row otherwise.
CREATE OR REPLACE FUNCTION public.masthead_mirror_of(index_oid oid)
RETURNS TABLE (schema_name text, table_name text, mirror_name text, columns text)
LANGUAGE plpgsql AS $spec$
DECLARE
  key_count int;
  key_expr text;
  path text[];
  targets text[] := '{}';
BEGIN
  SELECT i.indnkeyatts, t.relname, n.nspname INTO key_count, table_name, schema_name
    FROM pg_index i
    JOIN pg_class ix ON ix.oid = i.indexrelid
    JOIN pg_am am ON am.oid = ix.relam
    JOIN pg_class t ON t.oid = i.indrelid
    JOIN pg_namespace n ON n.oid = t.relnamespace
   WHERE i.indexrelid = index_oid AND am.amname = 'btree';
  -- Not a btree (our own GIN indexes come back through the trigger), or gone already.
  IF NOT FOUND THEN RETURN; END IF;
  -- Only collection tables of a FerretDB database; its metadata table is read by _id and table.
  IF table_name = '_ferretdb_database_metadata'
     OR to_regclass(format('%I._ferretdb_database_metadata', schema_name)) IS NULL THEN
    RETURN;
  END IF;
  FOR k IN 1..key_count LOOP
    -- FerretDB's key expressions deparse as (_jsonb -> 'a'::text) or ((_jsonb -> 'a'::text) -> 'b'::text).
    key_expr := pg_get_indexdef(index_oid, k, false);
    CONTINUE WHEN key_expr !~ '^\(*_jsonb -> ''';
    SELECT array_agg(replace(m[1], '''''', '''') ORDER BY ord) INTO path
      FROM regexp_matches(key_expr, '''((?:[^'']|'''')*)''::text', 'g') WITH ORDINALITY AS found(m, ord);
    CONTINUE WHEN path IS NULL;
    -- The same expression FerretDB filters with, so that the planner can match it.
    targets := targets || CASE WHEN cardinality(path) = 1 THEN format('_jsonb -> %L', path[1])
                               ELSE format('_jsonb #> %L::text[]', path) END;
  END LOOP;
  IF cardinality(targets) = 0 THEN RETURN; END IF;
  -- A one-key mirror keeps the name the per-key mirrors had.
  mirror_name := left(table_name, 44) || '_' || left(md5(array_to_string(targets, ', ')), 12) || '_gin';
  SELECT string_agg(format('(%s) jsonb_path_ops', target), ', ') INTO columns FROM unnest(targets) AS target;
  RETURN NEXT;
END
$spec$;

CREATE OR REPLACE FUNCTION public.masthead_mirror_index(index_oid oid) RETURNS void
LANGUAGE plpgsql AS $mirror$
DECLARE
  spec record;
BEGIN
  FOR spec IN SELECT * FROM public.masthead_mirror_of(index_oid) LOOP
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin (%s) WITH (fastupdate = off)',
                   spec.mirror_name, spec.schema_name, spec.table_name, spec.columns);
  END LOOP;
END
$mirror$;

CREATE OR REPLACE FUNCTION public.masthead_mirror_created_indexes() RETURNS event_trigger
LANGUAGE plpgsql AS $trigger$
DECLARE
  created record;
BEGIN
  FOR created IN SELECT objid FROM pg_event_trigger_ddl_commands() WHERE object_type = 'index' LOOP
    PERFORM public.masthead_mirror_index(created.objid);
  END LOOP;
END
$trigger$;

DROP EVENT TRIGGER IF EXISTS masthead_mirror_indexes;
CREATE EVENT TRIGGER masthead_mirror_indexes ON ddl_command_end WHEN TAG IN ('CREATE INDEX')
  EXECUTE FUNCTION public.masthead_mirror_created_indexes();

SELECT public.masthead_mirror_index(indexrelid) FROM pg_index;

DO $catchup$
DECLARE
  mirror record;
BEGIN
  FOR mirror IN
    SELECT c.oid, n.nspname, c.relname, c.reloptions,
           c.relname NOT IN (SELECT m.mirror_name FROM pg_index b, public.masthead_mirror_of(b.indexrelid) m
                              WHERE b.indrelid = i.indrelid) AS stale
      FROM pg_index i
      JOIN pg_class c ON c.oid = i.indexrelid
      JOIN pg_am am ON am.oid = c.relam
      JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE am.amname = 'gin' AND c.relname LIKE '%\_gin'
       AND to_regclass(format('%I._ferretdb_database_metadata', n.nspname)) IS NOT NULL
  LOOP
    IF mirror.stale THEN
      EXECUTE format('DROP INDEX %I.%I', mirror.nspname, mirror.relname);
    ELSIF NOT coalesce(mirror.reloptions @> ARRAY['fastupdate=off'], false) THEN
      EXECUTE format('ALTER INDEX %I.%I SET (fastupdate = off)', mirror.nspname, mirror.relname);
      PERFORM gin_clean_pending_list(mirror.oid::regclass);
    END IF;
  END LOOP;
END
$catchup$;
`;
