import type { Knex } from 'knex';

// Every instance caches verified API keys and members' developer access; these triggers NOTIFY
// them (channel api_key_changes, read by src/auth/key-invalidation.ts) in the writing transaction,
// so a revocation, a shortened expiry, a removed permission or feature bites on the next request
// whoever wrote it: the API, the CLI or manual SQL. NOTIFY is sent at commit, never on rollback.
// last_used_at (touched once a minute per key) is deliberately not watched.
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    create function notify_api_key_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('api_key_changes', json_build_object('kind', 'key', 'orgId', old.org_id, 'keyId', old.id)::text);
      return null;
    end $$;
    create trigger api_keys_notify_update after update of org_id, id, member_id, scopes, secret_hash, expires_at, revoked_at
      on api_keys for each row
      when ((old.org_id, old.id, old.member_id, old.scopes, old.secret_hash, old.expires_at, old.revoked_at)
        is distinct from (new.org_id, new.id, new.member_id, new.scopes, new.secret_hash, new.expires_at, new.revoked_at))
      execute function notify_api_key_change();
    create trigger api_keys_notify_delete after delete on api_keys for each row execute function notify_api_key_change();

    create function notify_member_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('api_key_changes', json_build_object('kind', 'member', 'orgId', old.org_id, 'memberId', old.id)::text);
      return null;
    end $$;
    create trigger org_members_notify_update after update of org_id, id, permissions on org_members for each row
      when ((old.org_id, old.id, old.permissions) is distinct from (new.org_id, new.id, new.permissions))
      execute function notify_member_change();
    create trigger org_members_notify_delete after delete on org_members for each row execute function notify_member_change();

    create function notify_org_change() returns trigger language plpgsql as $$
    begin
      perform pg_notify('api_key_changes', json_build_object('kind', 'org', 'orgId', old.id)::text);
      return null;
    end $$;
    create trigger organisations_notify_update after update of id, tier, features, phone_region on organisations for each row
      when ((old.id, old.tier, old.features, old.phone_region) is distinct from (new.id, new.tier, new.features, new.phone_region))
      execute function notify_org_change();
    create trigger organisations_notify_delete after delete on organisations for each row execute function notify_org_change();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    drop trigger organisations_notify_delete on organisations;
    drop trigger organisations_notify_update on organisations;
    drop function notify_org_change();
    drop trigger org_members_notify_delete on org_members;
    drop trigger org_members_notify_update on org_members;
    drop function notify_member_change();
    drop trigger api_keys_notify_delete on api_keys;
    drop trigger api_keys_notify_update on api_keys;
    drop function notify_api_key_change();
  `);
}
