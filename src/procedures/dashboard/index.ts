import { dashboardGetLeadStats } from './get-lead-stats';

export const dashboardProcedures = [dashboardGetLeadStats] as const;
