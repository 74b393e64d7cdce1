-- The extension's functions and their promises: volatility (i immutable,
-- s stable), strictness and parallel safety (s safe). Regenerated whenever a
-- function is added; a change here must be deliberate.
SELECT p.oid::regprocedure AS function, p.provolatile AS volatile, p.proisstrict AS strict,
       p.proparallel AS parallel, p.proleakproof AS leakproof, p.prosecdef AS secdef,
       p.prosupport <> 0 AS has_support
FROM pg_proc p
JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
JOIN pg_extension e ON e.oid = d.refobjid AND e.extname = 'simhash'
ORDER BY p.proname, p.oid::regprocedure::text;
