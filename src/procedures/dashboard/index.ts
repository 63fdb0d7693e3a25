import { dashboardGetLeadStats } from './get-lead-stats';
import { dashboardOnLeadStats } from './on-lead-stats';

export const dashboardProcedures = [dashboardGetLeadStats] as const;
export const dashboardSubscriptions = [dashboardOnLeadStats] as const;
