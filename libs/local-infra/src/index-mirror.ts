/**
 * SQL that makes FerretDB's indexes usable on PostgreSQL (docs/adr/0090).
 *
 * FerretDB 1.24 turns each declared index into a btree on `(_jsonb -> 'field')`, but pushes
 * filters down as `_jsonb -> 'field' @> '"value"'` (or `_jsonb #> '{a,b}' @> …` for a dotted
 * field), which a btree cannot serve. An event trigger mirrors every btree FerretDB creates on a
 * collection table as one GIN `jsonb_path_ops` index per key, in the same statement: the index
 * exists before `createIndexes` answers, whoever created it and whenever, with no step for the
 * test kit, the dev stack or the bench to remember. The closing SELECT catches up indexes made
 * before the trigger existed (a data folder from an older launcher). Idempotent: run at every start.
 */
export const INDEX_MIRROR_SQL = String.raw`
CREATE OR REPLACE FUNCTION public.masthead_mirror_index(index_oid oid) RETURNS void
LANGUAGE plpgsql AS $mirror$
DECLARE
  table_oid oid;
  table_name text;
  schema_name text;
  key_count int;
  key_expr text;
  path text[];
  target text;
BEGIN
  SELECT i.indrelid, i.indnkeyatts, t.relname, n.nspname INTO table_oid, key_count, table_name, schema_name
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
    target := CASE WHEN cardinality(path) = 1 THEN format('_jsonb -> %L', path[1])
                   ELSE format('_jsonb #> %L::text[]', path) END;
    EXECUTE format('CREATE INDEX IF NOT EXISTS %I ON %I.%I USING gin ((%s) jsonb_path_ops)',
                   left(table_name, 44) || '_' || left(md5(target), 12) || '_gin', schema_name, table_name, target);
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
`;
