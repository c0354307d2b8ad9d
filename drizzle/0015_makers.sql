ALTER TABLE `members` ADD `created_by` integer REFERENCES owners(id) ON DELETE cascade;--> statement-breakpoint
CREATE INDEX `members_created_by_idx` ON `members` (`created_by`);--> statement-breakpoint
ALTER TABLE `shared_links` ADD `created_by` integer REFERENCES owners(id) ON DELETE cascade;--> statement-breakpoint
CREATE INDEX `shared_links_created_by_idx` ON `shared_links` (`created_by`);